import type { Trace } from '@sieve/core'
import type { z } from 'zod'

/**
 * A deterministic check: a pure function over an assembled trace and its validated parameters.
 * Built-in checks live one per file in this folder; user checks are modules whose default export
 * is a `defineCheck(...)` value (see scorer/README.md).
 */

/** What was seen, where: `message` is the sentence an engineer reads; other keys locate it (span ids, tools, phrases). */
export type CheckDetail = { message: string } & Record<string, unknown>

export interface CheckResult {
  name: string
  version: string
  /** In [0, 1]; 1 is best. */
  value: number
  passed: boolean
  detail: CheckDetail
}

/**
 * The check has nothing to look at in this trace (e.g. no schema declared); no score is stored.
 * `unmeasured`: what it reads is absent from the trace (content not captured, no token counts, tool
 * calls not visible), so its verdict is unknown: stored as not measured (the dashboards' coverage),
 * never as a pass.
 */
export interface CheckSkipped {
  name: string
  version: string
  skipped: string
  unmeasured?: true
}

export type CheckOutcome = CheckResult | CheckSkipped

export const isSkipped = (o: CheckOutcome): o is CheckSkipped => 'skipped' in o

/** What a check's body returns; `defineCheck` adds the name and version. */
export type Verdict = { value: number; passed: boolean; detail: CheckDetail } | { skipped: string; unmeasured?: true }

/** The trace lacks what the check reads: see CheckSkipped.unmeasured. */
export const notMeasured = (reason: string): Verdict => ({ skipped: reason, unmeasured: true })

export interface CheckDefinition<P extends z.ZodType = z.ZodType> {
  name: string
  /** Bump when the check's logic changes meaning: scores of different versions are kept apart. */
  version: string
  description: string
  /** Parameters schema; must accept `{}` (every parameter has a default) for the check to run with no config. */
  params: P
  run(trace: Trace, params: z.output<P>): CheckOutcome
}

export function defineCheck<P extends z.ZodType>(definition: {
  name: string
  version: string
  description: string
  params: P
  evaluate(trace: Trace, params: z.output<P>): Verdict
}): CheckDefinition<P> {
  const { name, version, description, params, evaluate } = definition
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`check name '${name}' must be snake_case (a-z, 0-9, _)`)
  return {
    name,
    version,
    description,
    params,
    run(trace, p) {
      const verdict = evaluate(trace, p)
      if ('skipped' in verdict)
        return verdict.unmeasured ? { name, version, skipped: verdict.skipped, unmeasured: true } : { name, version, skipped: verdict.skipped }
      const value = Number.isFinite(verdict.value) ? Math.min(1, Math.max(0, verdict.value)) : 0
      return { name, version, value, passed: verdict.passed, detail: verdict.detail }
    },
  }
}

/** Pass when `failures` is empty; value is the share of `total` that did not fail. */
export function ratioVerdict(total: number, failures: number, detail: CheckDetail): Verdict {
  return { value: total === 0 ? (failures === 0 ? 1 : 0) : 1 - failures / total, passed: failures === 0, detail }
}

/** `1 tool call`, `2 tool calls`: a count in a detail message. */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
