import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { envSchema } from '@sieve/core'
import { BUCKETS } from '@sieve/dataset'
import { parseCommandArgs } from '../src/args.js'
import { commands } from '../src/commands/index.js'
import { SETTINGS } from '../src/environment.js'
import { commandHelp } from '../src/help.js'

/*
 * `sieve <command> --help` is written from the same option definitions the arguments are parsed
 * with: every flag with what its value is, its default and the setting it depends on; the settings
 * the command reads; its exit codes.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))

function sieve(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(`${root}node_modules/.bin/sieve`, args, { cwd: root, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
    )
  })
}

/** The help text after `heading`, up to the next blank line. */
function section(help: string, heading: string): string {
  const start = help.indexOf(`\n${heading}\n`)
  assert.ok(start >= 0, `no '${heading}' section in:\n${help}`)
  const rest = help.slice(start + heading.length + 2)
  const end = rest.indexOf('\n\n')
  return end < 0 ? rest : rest.slice(0, end)
}

test('sieve up --help says what it starts, the main settings, and where data goes', async () => {
  const { code, stdout } = await sieve(['up', '--help'])
  assert.equal(code, 0)
  const text = stdout.replace(/\n/g, ' ')
  for (const part of ['collector', 'ingester', 'scorer', 'judge', 'dashboard', '/v1/traces', '/ui', '/metrics']) assert.ok(text.includes(part), part)
  assert.ok(text.includes('SIEVE_DATA_DIR/clickhouse (./data/clickhouse by default'), 'where the embedded store lives')
  assert.ok(text.includes('SIEVE_DATA_DIR/datasets/<project>/golden.jsonl'), 'where dashboard exports go')
  const env = section(stdout, 'Environment (or the same names in the SIEVE_CONFIG_FILE file; the environment wins):')
  for (const name of [
    'SIEVE_HOST',
    'SIEVE_PORT',
    'SIEVE_DATA_DIR',
    'SIEVE_API_KEYS',
    'CLICKHOUSE_URL',
    'KAFKA_BROKERS',
    'JUDGE_BASE_URL',
    'JUDGE_API_KEY',
    'JUDGE_MODEL',
  ]) {
    assert.match(env, new RegExp(`^  ${name} +\\S`, 'm'), name)
  }
  assert.match(env, /SIEVE_PORT .*\[default: 4318\]/)
  assert.match(env.replace(/\n {20,}/g, ' '), /^ {2}SIEVE_DATA_DIR .*\[default: \.\/data\]$/m)
  assert.match(section(stdout, 'Exit codes:'), /^ {2}0 .*\n {2}1 .*(\n.*)*\n {2}2 /)
})

test('sieve eval --help: each flag with its value type, default and setting; exit codes', async () => {
  const { code, stdout } = await sieve(['eval', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /^Usage: sieve eval --dataset <file> --agent <command\|module\|url> \[options\]$/m)
  assert.ok(!stdout.includes('<value>'), 'no flag is a bare <value>')
  // One line per flag, wrapped descriptions joined.
  const flat = stdout.replace(/\n {20,}/g, ' ')
  assert.match(flat, /^ {2}--repeats <n\|auto> .*\[default: 3\]$/m)
  assert.match(flat, /^ {2}--fail-threshold <0\.\.1> .*\[default: 0\.1\]$/m)
  assert.match(flat, /^ {2}--zero-tolerance <check> .*\[repeatable\]$/m)
  assert.match(flat, /^ {2}--timeout <seconds> .*\[default: 120\]$/m)
  assert.match(flat, /^ {2}--fail-below <0\.\.1> /m)
  assert.match(flat, /^ {2}--judge-floor <dim=x> .*\[repeatable\]$/m)
  assert.match(flat, /^ {2}--judge .*\[default: on when JUDGE_MODEL is set; env: JUDGE_MODEL\]$/m)
  const exits = section(stdout, 'Exit codes:')
  assert.match(exits, /^ {2}0 +pass$/m)
  assert.match(exits, /^ {2}1 +regression/m)
  assert.match(exits, /^ {2}2 +usage or configuration error/m)
})

test("every command's help shows each flag with a value name, its default and setting, and lists exit codes", () => {
  for (const command of commands) {
    const help = commandHelp(command)
    assert.ok(!help.includes('<value>'), `${command.name}: a flag shown as <value>`)
    const options = section(help, 'Options:')
    for (const [name, spec] of Object.entries(command.options)) {
      const line = new RegExp(`^  (-\\w, )?--${name}${spec.type === 'string' ? ' <[^>]+>' : ''}( |$)`, 'm')
      assert.match(options, line, `${command.name} --${name}`)
      if (spec.type === 'string' && spec.choices) assert.ok(options.includes(`--${name} <${spec.choices.join('|')}>`), `${command.name} --${name} choices`)
      const defaultText = spec.defaultText ?? (spec.type === 'string' ? spec.default : undefined)
      if (defaultText !== undefined) assert.ok(options.replace(/\n +/g, ' ').includes(`default: ${defaultText}`), `${command.name} --${name} default`)
      if (spec.env) assert.ok(options.replace(/\n +/g, ' ').includes(`env: ${spec.env}`), `${command.name} --${name} env`)
    }
    const exits = section(help, 'Exit codes:')
    for (const code of Object.keys(command.exitCodes)) assert.match(exits, new RegExp(`^  ${code} `, 'm'), `${command.name} exit ${code}`)
    assert.ok('0' in command.exitCodes && '2' in command.exitCodes, `${command.name}: 0 and 2`)
    // A name longer than the column stands on a line of its own (help.ts, entry).
    for (const name of command.env ?? []) assert.match(help, new RegExp(`^  ${name}( |$)`, 'm'), `${command.name} ${name}`)
  }
})

test('parsing uses the same definitions: defaults, required flags, allowed values, unknown flags', () => {
  const byName = (name: string) => commands.find((c) => c.name === name)!
  const evalArgs = parseCommandArgs(byName('eval'), ['--dataset', 'd.jsonl', '--agent', 'a', '--judge-floor', 'x=0.5', '--judge-floor', 'y=0.5'])
  assert.deepEqual(
    [evalArgs.values.repeats, evalArgs.values.timeout, evalArgs.values.out, evalArgs.values['judge-floor']],
    ['3', '120', undefined, ['x=0.5', 'y=0.5']],
  )
  assert.throws(() => parseCommandArgs(byName('eval'), ['--agent', 'a']), /--dataset <file> is required/)
  assert.throws(
    () => parseCommandArgs(byName('export'), ['--out', 'x', '--bucket', 'nope']),
    /--bucket must be one of typical, edge, known-failure \(got 'nope'\)/,
  )
  assert.throws(() => parseCommandArgs(byName('scrub'), ['--format', 'xml']), /--format must be one of auto, jsonl, text/)
  assert.throws(
    () => parseCommandArgs(byName('score'), ['--trace', 'x', '--nope']),
    (e: { code?: string }) => e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION',
  )
  assert.deepEqual(parseCommandArgs(byName('dataset'), ['validate', 'f.jsonl']).positionals, ['validate', 'f.jsonl'])
})

test('a usage error names the problem and the usage line, and exits 2', async () => {
  const { code, stdout, stderr } = await sieve(['export', '--bucket', 'nope', '--out', 'x.jsonl'])
  assert.equal(code, 2)
  assert.equal(stdout, '')
  assert.equal(
    stderr,
    "sieve export: --bucket must be one of typical, edge, known-failure (got 'nope')\nUsage: sieve export --out <file> [options]\nRun `sieve export --help` for the options.\n",
  )
})

test("the settings help describes are the configuration schema's, with its defaults", () => {
  const defaults = envSchema.parse({}) as Record<string, unknown>
  const described = SETTINGS as Record<string, { default?: unknown; unset?: string }>
  for (const name of Object.keys(envSchema.shape)) {
    assert.ok(described[name], `${name} is in cli/src/environment.ts`)
    assert.equal(described[name].default, defaults[name], `${name} default`)
    assert.ok((described[name].default === undefined) !== (described[name].unset === undefined), `${name}: a default or what unset means`)
  }
  // Read outside the schema: the file itself, and the scrubber's secret (dataset/src/scrub/config.ts).
  assert.deepEqual(
    Object.keys(SETTINGS).filter((n) => !(n in envSchema.shape)),
    ['SIEVE_CONFIG_FILE', 'SIEVE_SCRUB_SECRET'],
  )
})

test('the export --bucket choices are the dataset buckets', () => {
  const bucket = commands.find((c) => c.name === 'export')!.options.bucket!
  assert.ok(bucket.type === 'string')
  assert.deepEqual(bucket.choices, BUCKETS)
})

test("the root README's configuration table names every setting --help describes, and no other", () => {
  const readme = readFileSync(`${root}README.md`, 'utf8')
  const table = readme.split('\n## Configuration\n')[1]?.split('\n## ')[0] ?? ''
  const documented = new Set([...table.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]!))
  const settings = Object.keys(SETTINGS)
  assert.deepEqual(
    settings.filter((name) => !documented.has(name)),
    [],
    'settings missing from README.md#configuration',
  )
  assert.deepEqual(
    [...documented].filter((name) => !settings.includes(name)),
    [],
    'README.md#configuration names what is not a setting',
  )
})
