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
export type StringOption = StringOptionBase & (
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
