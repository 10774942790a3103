import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { freePort } from '@sieve/testkit'
import { spawnClickHouseHttp } from '@sieve/testkit/clickhouse-http'
import { importLog } from './support/import-log.js'

/*
 * The build as the image runs it, without Docker: `npm run build`, then deploy/runtime-tree.sh (what
 * deploy/Dockerfile's runtime stage copies) into a temporary directory, `npm ci --omit=dev
 * --omit=optional` there as the image does (from npm's cache where it can), and the CLI run from
 * dist/ with no TypeScript sources, no dev dependencies and no chDB.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const { version } = JSON.parse(readFileSync(join(root, 'cli/package.json'), 'utf8')) as { version: string }
const scratch = mkdtempSync(join(tmpdir(), 'sieve-dist-'))
const app = join(scratch, 'manifests')
const sieve = join(app, 'node_modules/.bin/sieve')
after(() => rmSync(scratch, { recursive: true, force: true }))

interface Run {
  code: number
  stdout: string
  stderr: string
}

/** The environment without what `npm test` puts there for its own run (npm_config_*, npm_package_*...). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name) && !/^(CLICKHOUSE|KAFKA|SIEVE)_/.test(name)))
  return { ...env, NODE_OPTIONS: '', ...extra }
}

function run(file: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeout?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(
      file,
      args,
      { cwd: options.cwd ?? app, env: options.env ?? cleanEnv(), timeout: options.timeout ?? 60_000, maxBuffer: 16 << 20 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
        resolve({ code, stdout, stderr })
      },
    )
    child.stdin?.end(options.input ?? '')
  })
}

const bin = (tool: string) => join(dirname(process.execPath), tool)

before(async () => {
  const build = await run(bin('npm'), ['run', 'build'], { cwd: root, env: cleanEnv(), timeout: 180_000 })
  assert.equal(build.code, 0, `npm run build:\n${build.stdout}\n${build.stderr}`)
  const tree = await run(join(root, 'deploy/runtime-tree.sh'), [scratch], { cwd: root })
  assert.equal(tree.code, 0, tree.stderr)
  const install = await run(bin('npm'), ['ci', '--omit=dev', '--omit=optional', '--prefer-offline', '--no-audit', '--no-fund'], { timeout: 180_000 })
  assert.equal(install.code, 0, `npm ci:\n${install.stdout}\n${install.stderr}`)
  cpSync(join(scratch, 'app'), app, { recursive: true })
})

test('the tree holds the builds and production dependencies only: no sources, tsx, compiler or chDB', () => {
  for (const w of ['core', 'pii', 'collector', 'scorer', 'dataset', 'replay', 'dashboard', 'sdk', 'cli']) {
    assert.ok(existsSync(join(app, w, 'dist/index.js')), `${w}/dist`)
    assert.ok(!existsSync(join(app, w, 'src')), `no ${w}/src`)
  }
  for (const dev of ['tsx', 'typescript', 'esbuild', '@sieve/testkit', 'playwright-core']) assert.ok(!existsSync(join(app, 'node_modules', dev)), `no ${dev}`)
  for (const optional of ['chdb', '@chdb']) assert.ok(!existsSync(join(app, 'node_modules', optional)), `no ${optional}`)
  for (const prod of ['express', '@clickhouse/client', 'kafkajs', 'zod', 'openai', 'uplot']) assert.ok(existsSync(join(app, 'node_modules', prod)), prod)
})

test('the Kafka roles compress with the native Snappy library, though optional dependencies are left out', async () => {
  const loaded = await run(process.execPath, [
    '-e',
    "process.stdout.write(require('snappy').uncompressSync(require('snappy').compressSync(Buffer.from('spans'))).toString())",
  ])
  assert.equal(loaded.code, 0, loaded.stderr)
  assert.equal(loaded.stdout, 'spans')
})

test('sieve --version, --help and up --help run from dist', async () => {
  const v = await run(sieve, ['--version'])
  assert.equal(v.code, 0, v.stderr)
  assert.equal(v.stdout, `sieve ${version}\n`) // no commit: not a git checkout
  const help = await run(sieve, ['--help'])
  assert.equal(help.code, 0, help.stderr)
  assert.match(help.stdout, /^Usage: sieve <command> \[options\]/)
  for (const name of ['up', 'collector', 'ingester', 'scorer', 'dashboard', 'migrate', 'export', 'eval', 'scrub'])
    assert.match(help.stdout, new RegExp(`^  ${name} `, 'm'))
  const up = await run(join(app, 'cli/bin/sieve'), ['up', '--help'])
  assert.equal(up.code, 0, up.stderr)
  assert.match(up.stdout, /^Usage: sieve up/)
  const direct = await run(process.execPath, [join(app, 'cli/dist/main.js'), '--version'])
  assert.equal(direct.stdout, `sieve ${version}\n`, direct.stderr)
})

test('server roles run without chDB: an unreachable CLICKHOUSE_URL is a storage error, not a missing module', async () => {
  const [clickhouse, kafka] = [await freePort(), await freePort()]
  const env = cleanEnv({ CLICKHOUSE_URL: `http://127.0.0.1:${clickhouse}`, KAFKA_BROKERS: `127.0.0.1:${kafka}`, SIEVE_DATA_DIR: join(scratch, 'data') })
  for (const role of ['collector', 'migrate']) {
    const result = await run(sieve, [role], { env })
    assert.equal(result.code, 1, `sieve ${role}: ${result.stdout}\n${result.stderr}`)
    assert.match(result.stderr, new RegExp(`sieve ${role}: cannot reach ClickHouse at http://127\\.0\\.0\\.1:${clickhouse}`))
    assert.doesNotMatch(result.stderr, /ERR_MODULE_NOT_FOUND|Cannot find (module|package)|chdb/i)
    assert.doesNotMatch(result.stderr, /StorageError|at createStorage/, 'reported, not thrown')
  }
})

/** What deploy/Dockerfile's runtime stage says a container runs: its ENV, ENTRYPOINT, CMD and HEALTHCHECK command. */
function dockerfileRuntime() {
  const text = readFileSync(join(root, 'deploy/Dockerfile'), 'utf8').replace(/\\\n\s*/g, ' ')
  const runtime = text.slice(text.lastIndexOf('\nFROM '))
  const json = (instruction: string) =>
    JSON.parse(new RegExp(`^${instruction}\\s+(?:--\\S+\\s+)*(?:CMD\\s+)?(\\[.*\\])\\s*$`, 'm').exec(runtime)![1]!) as string[]
  const env: Record<string, string> = {}
  for (const [, pairs] of runtime.matchAll(/^ENV\s+(.*)$/gm)) for (const [, k, v] of pairs!.matchAll(/(\w+)=(\S+)/g)) env[k!] = v!
  return { env, entrypoint: json('ENTRYPOINT'), cmd: json('CMD'), healthcheck: json('HEALTHCHECK') }
}

test("the image's default command says in one line what it lacks, exit 2, and writes nothing", async () => {
  const image = dockerfileRuntime()
  assert.deepEqual(image.cmd, ['up'])
  const [node, ...args] = image.entrypoint
  assert.equal(node, 'node')
  // The container's environment, its data directory somewhere this test may write.
  const dataDir = join(scratch, 'image-data')
  const env = cleanEnv({ ...image.env, PATH: process.env.PATH!, SIEVE_DATA_DIR: dataDir, SIEVE_PORT: String(await freePort()) })
  const result = await run(process.execPath, [...args, ...image.cmd], { env })
  assert.equal(result.code, 2, `${result.stdout}\n${result.stderr}`)
  assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr)
  assert.match(
    result.stderr,
    /^sieve up: the embedded engine \(chdb\) is not installed \(Sieve's Docker image has it only when built with --build-arg WITH_CHDB=1\): npm install chdb, or set CLICKHOUSE_URL/,
  )
  assert.doesNotMatch(result.stdout, /Sieve is up/)
  assert.equal(existsSync(dataDir), false, 'no data directory created')
})

test("the image's default command runs given CLICKHOUSE_URL and SIEVE_API_KEYS, and its HEALTHCHECK passes", { timeout: 120_000 }, async () => {
  const image = dockerfileRuntime()
  const [, ...args] = image.entrypoint
  const clickhouse = await spawnClickHouseHttp({ path: join(scratch, 'image-engine') })
  const port = await freePort()
  const env = cleanEnv({
    ...image.env,
    PATH: process.env.PATH!,
    SIEVE_DATA_DIR: join(scratch, 'image-data-2'),
    SIEVE_PORT: String(port),
    CLICKHOUSE_URL: clickhouse.url,
    SIEVE_API_KEYS: 'image-key:image',
  })
  const child = spawn(process.execPath, [...args, ...image.cmd], { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d: Buffer) => (output += d))
  child.stderr.on('data', (d: Buffer) => (output += d))
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => /Sieve is up/.test(output) && resolve())
      child.once('exit', (code) => reject(new Error(`sieve up exited ${code}:\n${output}`)))
    })
    // The health check as Docker runs it inside the container: the image's command, its environment.
    const [healthNode, ...healthArgs] = image.healthcheck
    assert.equal(healthNode, 'node')
    const health = await run(process.execPath, healthArgs, { env })
    assert.equal(health.code, 0, `HEALTHCHECK: ${health.stderr}`)
    assert.match(readFileSync(join(root, 'deploy/Dockerfile'), 'utf8'), /^EXPOSE 4318$/m)
  } finally {
    child.kill('SIGTERM')
    if (child.exitCode === null) await once(child, 'exit')
    await clickhouse.close()
  }
  const stopped = await run(process.execPath, image.healthcheck.slice(1), { env })
  assert.equal(stopped.code, 1, 'the health check fails once nothing answers')
})

test("the builds find what they read at run time: migrations, rubrics, the judge's worker, the UI and uPlot, the PII lexicon", async () => {
  const check = join(app, 'check-assets.mjs')
  writeFileSync(
    check,
    `
    import express from 'express'
    import { loadMigrations } from '@sieve/core'
    import { SCORER_VERSION } from '@sieve/scoring'
import { JudgeThread } from '@sieve/judge'
    import { loadRubrics } from '@sieve/judging'
    import { createUi, UI_PATH } from '@sieve/dashboard'
    const out = { migrations: loadMigrations().length, rubrics: loadRubrics().size, scorerVersion: SCORER_VERSION }
    const thread = new JudgeThread({ client: { baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'unused', timeoutMs: 1000, maxRetries: 0 }, concurrency: 1, judges: { judge: { model: 'm' }, panel: undefined }, rubrics: [] }, { inc() {} })
    const alive = setInterval(() => {}, 1000) // the thread is unref'd: something else keeps a process alive
    await thread.ready()
    clearInterval(alive)
    out.judgeWorker = true
    await thread.close()
    const ui = express().use(UI_PATH, createUi())
    const server = ui.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    const base = 'http://127.0.0.1:' + server.address().port + UI_PATH
    out.ui = (await fetch(base + '/')).status
    out.uplot = (await fetch(base + '/vendor/uplot/uPlot.esm.js')).status
    server.close()
    console.log(JSON.stringify(out))
  `,
  )
  const result = await run(process.execPath, [check])
  assert.equal(result.code, 0, result.stderr)
  const out = JSON.parse(result.stdout) as Record<string, unknown>
  assert.deepEqual(out, {
    migrations: readdirSync(join(root, 'migrations')).filter((f) => f.endsWith('.sql')).length,
    rubrics: readdirSync(join(root, 'judging/rubrics')).length,
    scorerVersion: version,
    judgeWorker: true,
    ui: 200,
    uplot: 200,
  })
  // `sieve scrub` reads names through the lexicon built from faker and compromise (createRequire from dist).
  const scrub = await run(sieve, ['scrub'], { input: 'Write to Maria Garcia at maria.garcia@example.com\n' })
  assert.equal(scrub.code, 0, scrub.stderr)
  assert.doesNotMatch(scrub.stdout, /maria\.garcia@example\.com|Maria Garcia/)
})

test('the bin: SIEVE_FROM_DIST=1 runs the build in a checkout; sources without tsx, or no build, are told what to do', async () => {
  // Which entry module the CLI started from, written down by a resolve hook.
  const log = importLog(scratch)
  const entries = async (fromDist: boolean) => {
    log.clear()
    const result = await run(join(root, 'node_modules/.bin/sieve'), ['--version'], {
      cwd: root,
      env: cleanEnv({ NODE_OPTIONS: `--import ${log.register}`, ...(fromDist ? { SIEVE_FROM_DIST: '1' } : {}) }),
    })
    assert.equal(result.code, 0, result.stderr)
    assert.match(result.stdout, new RegExp(`^sieve ${version.replace(/\./g, '\\.')}`))
    return log.read().filter((s) => /\/cli\/(src|dist)\/main\.(ts|js)$/.test(s))
  }
  assert.deepEqual(
    (await entries(false)).map((s) => s.replace(/^.*\/cli\//, 'cli/')),
    ['cli/src/main.ts'],
  )
  assert.deepEqual(
    (await entries(true)).map((s) => s.replace(/^.*\/cli\//, 'cli/')),
    ['cli/dist/main.js'],
  )

  // A copy of the CLI package with its sources but without tsx installed (npm ci --omit=dev in a checkout).
  const copy = join(scratch, 'cli-copy')
  mkdirSync(copy)
  cpSync(join(app, 'cli'), copy, { recursive: true, dereference: true })
  mkdirSync(join(copy, 'src'))
  writeFileSync(join(copy, 'src/main.ts'), '')
  const noTsx = await run(join(copy, 'bin/sieve'), ['--version'], { cwd: scratch })
  assert.equal(noTsx.code, 2)
  assert.match(
    noTsx.stderr,
    /^sieve: tsx is not installed, so the TypeScript sources cannot run: `npm ci` installs it; or run the build: `npm run build`, then SIEVE_FROM_DIST=1\n$/,
  )
  rmSync(join(copy, 'src'), { recursive: true })
  rmSync(join(copy, 'dist'), { recursive: true })
  const noBuild = await run(join(copy, 'bin/sieve'), ['--version'], { cwd: scratch })
  assert.equal(noBuild.code, 2)
  assert.match(noBuild.stderr, /^sieve: no build in .*\/cli-copy\/dist: run `npm run build` first\n$/)
})
