import type { ParseArgsConfig } from 'node:util'

/**
 * One `sieve <name>` subcommand. Each lives in its own file under commands/ and is listed in
 * commands/index.ts. `run` returns the process exit code: 0 ok, 1 a finding (e.g. a regression),
 * 2 a usage or configuration error.
 */
export interface Command {
  name: string
  summary: string
  usage: string
  options: NonNullable<ParseArgsConfig['options']>
  /** Accept positional arguments (e.g. `sieve dataset validate <file>`). */
  positionals?: boolean
  run(args: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] }): Promise<number>
}

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
