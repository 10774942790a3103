import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { EnvName } from './environment.js'

/**
 * One `sieve <name>` subcommand. Each lives in its own file under commands/ and is listed in
 * commands/index.ts. Everything `sieve <name> --help` prints comes from this object, and so does
 * parsing (args.ts): the options below are the only definition of the command's flags.
 *
 * Command files import what `run` needs inside `run` (`await import(...)`): `sieve --help` loads
 * every command file, and must not load chDB, the judge, express or kafkajs to do it.
 */
export interface Command {
  name: string
  /** One line, for `sieve --help`. */
  summary: string
  /** Positional arguments, as shown in the usage line (`validate <file>`); none unless given. */
  arguments?: string
  options: Record<string, OptionSpec>
  /** Paragraphs printed after the summary in `sieve <name> --help`: what it starts, where data goes. */
  details?: string[]
  /** Settings the command reads (environment variables, or the same names in SIEVE_CONFIG_FILE). */
  env?: EnvName[]
  /** Every exit code `run` can return, and what it means. */
  exitCodes: Record<number, string>
  run(args: { values: OptionValues; positionals: string[] }): Promise<number>
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>

interface OptionBase {
  description: string
  /** A one-letter alias: `-x`. */
  short?: string
  /**
   * The setting this flag's default depends on, when it has one (e.g. `--judge`: JUDGE_MODEL).
   * Shown in help; the command reads it from the configuration like any other setting.
   */
  env?: EnvName
  /** A default that is not one value, in words ("on when JUDGE_MODEL is set"); shown in help. */
  defaultText?: string
}

interface StringOptionBase extends OptionBase {
  type: 'string'
  default?: string
  /** Repeatable: the value is the list of every occurrence. */
  multiple?: boolean
  /** Parsing fails without it. */
  required?: boolean
}

/** A flag taking a value: either any value, named for help, or one of `choices`. */
export type StringOption = StringOptionBase &
  (
    | {
        /** What the value is, as help shows it: `--out <file>`, `--repeats <n>`, `--below <0..1>`. */
        value: string
        choices?: never
      }
    | {
        /** The only values accepted; the parser refuses others and help shows them as `<a|b|c>`. */
        choices: readonly string[]
        value?: never
      }
  )

export interface BooleanOption extends OptionBase {
  type: 'boolean'
}

export type OptionSpec = StringOption | BooleanOption

export class UsageError extends Error {
  readonly code = 'USAGE'
}

/** An optional `--name` option that must be a number in [0, 1] (a score threshold). */
export function fractionOption(name: string, raw: unknown): number | undefined {
  if (raw === undefined) return undefined
  const x = Number(raw)
  if (!(x >= 0 && x <= 1)) throw new UsageError(`--${name} must be a number in [0, 1] (got '${String(raw)}')`)
  return x
}

/** `--name` as an integer from `min` to `max` (runs, workers). */
export function integerOption(name: string, raw: unknown, min: number, max: number): number {
  const x = Number(raw)
  if (!Number.isInteger(x) || x < min || x > max) throw new UsageError(`--${name} must be an integer from ${min} to ${max} (got '${String(raw)}')`)
  return x
}

/** `--otlp-port`, shared by eval and simulate: where an HTTP agent sends its traces. */
export const OTLP_PORT_OPTION: StringOption = {
  type: 'string',
  value: 'port',
  defaultText: '4319',
  description: 'with an http(s) --agent: the 127.0.0.1 port the agent sends its traces to (start it with SIEVE_ENDPOINT=http://127.0.0.1:<port>)',
}

/** `--trace-wait`, shared by eval and simulate: how long an HTTP agent's trace is waited for. */
export const TRACE_WAIT_OPTION: StringOption = {
  type: 'string',
  value: 'seconds',
  defaultText: '10',
  description: 'with an http(s) --agent: how long to wait, once it answered, for the span it opened under the request to arrive',
}

/** `--agent` (a command, a module or an http(s) URL), `--otlp-port` and `--trace-wait`; the gate (@sieve/replay) checks they fit together. */
export function agentOption(values: OptionValues): { agent: string; otlpPort?: number; traceWaitMs?: number } {
  const agent = typeof values.agent === 'string' ? values.agent.trim() : ''
  if (!agent) throw new UsageError('--agent must name a command, a module or an http(s) URL')
  const wait = values['trace-wait'] === undefined ? undefined : Number(values['trace-wait'])
  if (wait !== undefined && !(wait >= 0 && wait <= 600))
    throw new UsageError(`--trace-wait must be a number of seconds from 0 to 600 (got '${String(values['trace-wait'])}')`)
  return {
    agent,
    ...(values['otlp-port'] !== undefined ? { otlpPort: integerOption('otlp-port', values['otlp-port'], 1, 65535) } : {}),
    ...(wait !== undefined ? { traceWaitMs: wait * 1000 } : {}),
  }
}

/** `--now`, the agent's fixed clock (ISO 8601), else SIEVE_EVAL_NOW when set; undefined without either. */
export function nowOption(raw: unknown): string | undefined {
  const now = typeof raw === 'string' ? raw : process.env.SIEVE_EVAL_NOW || undefined
  if (now !== undefined && (!/^\d{4}-\d{2}-\d{2}T/.test(now) || Number.isNaN(Date.parse(now))))
    throw new UsageError(`--now must be an ISO 8601 time such as 2026-03-01T12:00:00Z (got '${now}')`)
  return now
}

/** `--max-cost`: a non-negative number of US dollars, or undefined. */
export function costOption(raw: unknown): number | undefined {
  if (raw === undefined) return undefined
  const x = Number(raw)
  if (!(x >= 0)) throw new UsageError(`--max-cost must be a non-negative number of US dollars (got '${String(raw)}')`)
  return x
}

/**
 * A setup problem the parts a command runs report by their error's `code`: its message on stderr
 * and exit 2. Anything else is rethrown (a bug, shown with its stack).
 */
export function configErrorExit(command: string, err: unknown, codes: readonly string[]): 2 {
  if (!codes.includes((err as { code?: string }).code ?? '')) throw err
  console.error(`sieve ${command}: ${(err as Error).message}`)
  return 2
}

/** A report as JSON to --out and its Markdown summary to --summary, `terminal` printed; the report's exit code. */
/**
 * Where a command's report and summary go: --out and --summary, else `reports/<name>.json` under the
 * data directory (never the current directory, which is often a repository), folders created.
 */
export function reportPaths(values: OptionValues, dataDir: string, name: string): { out: string; summary: string } {
  const out = typeof values.out === 'string' ? values.out : join(dataDir, 'reports', `${name}.json`)
  const summary = typeof values.summary === 'string' ? values.summary : `${out.replace(/\.json$/, '')}.md`
  for (const file of [out, summary]) mkdirSync(dirname(resolve(file)), { recursive: true })
  return { out, summary }
}

export function writeReport(values: OptionValues, report: { exitCode: number }, summary: string, terminal: string): number {
  writeFileSync(String(values.out), `${JSON.stringify(report, null, 2)}\n`)
  writeFileSync(String(values.summary), summary)
  console.log(`\n${terminal}\n\nReport: ${String(values.out)}, summary: ${String(values.summary)}`)
  return report.exitCode
}

/** `--url`: the commands that work on the store work through the Sieve there instead (with SIEVE_OPS_TOKEN). */
export const URL_OPTION: StringOption = {
  type: 'string',
  value: 'url',
  env: 'SIEVE_URL',
  description: 'work through the Sieve at this URL (sending SIEVE_OPS_TOKEN) instead of a store on this machine',
}

/** The environment loadConfig reads, `--url` given as SIEVE_URL. */
export const withUrl = (values: OptionValues): Record<string, string | undefined> =>
  typeof values.url === 'string' ? { ...process.env, SIEVE_URL: values.url } : process.env
