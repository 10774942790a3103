import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { importLog } from './support/import-log.js'

/*
 * The `sieve` bin as people run it: the workspace link npm makes in node_modules/.bin, npx, a
 * symlink from elsewhere, a global install's layout, and how light `--help` and `--version` are.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const { version } = JSON.parse(readFileSync(join(root, 'cli/package.json'), 'utf8')) as { version: string }
const scratch = mkdtempSync(join(tmpdir(), 'sieve-bin-'))
after(() => rmSync(scratch, { recursive: true, force: true }))

interface Run {
  code: number
  stdout: string
  stderr: string
}

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd: options.cwd ?? root, env: options.env ?? process.env, timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
      resolve({ code, stdout, stderr })
    })
  })
}

/** What `--version` must print here: the version, and the commit when this is a git checkout. */
function expectedVersion(): string {
  let commit: string | undefined
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    commit = undefined
  }
  return `sieve ${version}${commit ? ` (commit ${commit})` : ''}\n`
}

const COMMANDS = ['up', 'collector', 'ingester', 'scorer', 'dashboard', 'migrate', 'score', 'checks', 'judge', 'export', 'dataset', 'eval', 'scrub']

function assertMainHelp(result: Run): void {
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /^Usage: sieve <command> \[options\]/)
  for (const name of COMMANDS) assert.match(result.stdout, new RegExp(`^  ${name} `, 'm'), `${name} listed`)
}

test('node_modules/.bin/sieve --help works from the repository root', async () => {
  assertMainHelp(await run(join(root, 'node_modules/.bin/sieve'), ['--help']))
})

test('npx --no-install sieve --version prints the version and the commit', async () => {
  const npx = join(dirname(process.execPath), 'npx')
  const result = await run(npx, ['--no-install', 'sieve', '--version'])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(result.stdout, expectedVersion())
})

test('sieve works through a symlink to the .bin link, called from another directory', async () => {
  const dir = join(scratch, 'linked')
  mkdirSync(dir)
  symlinkSync(join(root, 'node_modules/.bin/sieve'), join(dir, 'sieve'))
  assertMainHelp(await run(join(dir, 'sieve'), ['--help'], { cwd: dir }))
  const version = await run('./sieve', ['-v'], { cwd: dir })
  assert.equal(version.code, 0, version.stderr)
  assert.equal(version.stdout, expectedVersion())
})

test('sieve works from PATH in a global install layout: prefix/bin/sieve → ../lib/node_modules/@sieve/cli (a linked folder)', async () => {
  const prefix = join(scratch, 'global')
  mkdirSync(join(prefix, 'lib/node_modules/@sieve'), { recursive: true })
  mkdirSync(join(prefix, 'bin'))
  symlinkSync(join(root, 'cli'), join(prefix, 'lib/node_modules/@sieve/cli'))
  symlinkSync('../lib/node_modules/@sieve/cli/bin/sieve', join(prefix, 'bin/sieve'))
  const env = { ...process.env, PATH: `${join(prefix, 'bin')}:${process.env.PATH}` }
  const result = await run('sieve', ['up', '--help'], { cwd: scratch, env })
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /^Usage: sieve up/)
})

test('sieve --version without git on PATH prints the version alone and exits 0', async () => {
  // Only what the bin script itself needs: sh, dirname, readlink and node.
  const bin = join(scratch, 'no-git-bin')
  mkdirSync(bin)
  for (const tool of ['sh', 'dirname', 'readlink']) {
    const path = execFileSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).trim()
    symlinkSync(path, join(bin, tool))
  }
  symlinkSync(process.execPath, join(bin, 'node'))
  const result = await run(join(root, 'node_modules/.bin/sieve'), ['--version'], { env: { ...process.env, PATH: bin } })
  assert.equal(result.code, 0, result.stderr)
  assert.equal(result.stdout, `sieve ${version}\n`)
})

test("sieve --help, --version and a command's --help load no storage engine, judge, HTTP server or Kafka client", async () => {
  const log = importLog(scratch)
  const heavy = /^(@sieve\/(core|collector|scorer|dataset|replay|dashboard)|chdb|kafkajs|express|@clickhouse\/client|prom-client|zod)(\/|$)/
  for (const args of [['--help'], ['--version'], ['up', '--help'], ['eval', '--help']]) {
    log.clear()
    const result = await run(join(root, 'node_modules/.bin/sieve'), args, { env: { ...process.env, NODE_OPTIONS: `--import ${log.register}` } })
    assert.equal(result.code, 0, result.stderr)
    const imported = log.read()
    assert.ok(
      imported.some((s) => s.endsWith('main.ts')),
      `the hook saw the CLI load: ${imported.join(', ')}`,
    )
    assert.deepEqual(
      imported.filter((s) => heavy.test(s)),
      [],
      `sieve ${args.join(' ')}`,
    )
  }
})

test('the bin starts node with a young generation of 32 MB a semi-space, from the sources and from the build', async () => {
  // A preload that reports the flags node was started with, then lets the CLI run.
  const preload = join(scratch, 'exec-argv.cjs')
  writeFileSync(preload, "process.stderr.write('execArgv ' + JSON.stringify(process.execArgv) + '\\n')\n")
  for (const fromDist of ['', '1']) {
    if (fromDist && !existsSync(join(root, 'cli/dist/main.js'))) continue
    const r = await run(join(root, 'node_modules/.bin/sieve'), ['--version'], {
      env: { ...process.env, NODE_OPTIONS: `--require ${preload}`, SIEVE_FROM_DIST: fromDist },
    })
    assert.equal(r.code, 0, r.stderr)
    const execArgv = JSON.parse(/execArgv (.*)/.exec(r.stderr)![1]!) as string[]
    assert.ok(execArgv.includes('--max-semi-space-size=32'), `${fromDist ? 'dist' : 'sources'}: ${execArgv.join(' ')}`)
  }
})
