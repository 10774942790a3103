import { genAiFields, type Span, type Trace } from '@sieve/core'
import { isSkipped, type CheckDefinition } from '@sieve/scoring'
import type { GoldenExample } from '@sieve/dataset'

export interface ReplayCheck {
  name: string
  value: number
  passed: boolean
  message: string
  /** The spans the check's detail names (where a prohibited tool was called, PII echoed...). */
  spanIds?: string[]
}

/** What a run must show: checks with their parameters, and least values for some of them. */
export type Expectation = Pick<GoldenExample['expected'], 'checks' | 'minValues'>

export interface ReplayScore {
  /** Mean of the expected checks' values; 0 when the run produced no trace. */
  value: number
  passed: boolean
  checks: ReplayCheck[]
  traceId: string
  model: string
}

/** The spans of one run as one trace: the run's agent invocation may have sent one trace only. */
export function replayTrace(spans: Span[]): Trace | undefined {
  if (!spans.length) return undefined
  const counts = new Map<string, number>()
  for (const s of spans) counts.set(s.traceId, (counts.get(s.traceId) ?? 0) + 1)
  const traceId = [...counts.entries()].sort((a, b) => b[1] - a[1])[0]![0]
  const own = spans.filter((s) => s.traceId === traceId)
  return { projectId: own[0]!.projectId, traceId, spans: own, complete: own.some((s) => s.parentSpanId === '') }
}

/**
 * A check the example asks a least value of (exported with `--score NAME --below X`, or a scorecard
 * gate's `min`) fails below it, even where the check itself passes: the trace was exported for
 * scoring that low.
 */
function atLeast(check: ReplayCheck, min: number | undefined): ReplayCheck {
  if (min === undefined || check.value >= min) return check
  return { ...check, passed: false, message: `${check.message}; value ${Math.round(check.value * 1000) / 1000} is below the example's minimum ${min}` }
}

/** Every `spanId` a check's detail holds, at any depth (a list of violations, one echo...). */
export function detailSpanIds(detail: unknown, found = new Set<string>()): string[] {
  if (Array.isArray(detail)) for (const item of detail) detailSpanIds(item, found)
  else if (detail && typeof detail === 'object') {
    for (const [key, value] of Object.entries(detail)) {
      if (key === 'spanId' && typeof value === 'string') found.add(value)
      else detailSpanIds(value, found)
    }
  }
  return [...found]
}

/**
 * Runs the expected checks (an example's, a scenario's), with the parameters they hold, over the
 * replay's trace: the same check code the scorer runs online. A check that has nothing to look at
 * counts as failed here: it was expected because it applied.
 */
export function scoreReplay(trace: Trace | undefined, expected: Expectation, available: readonly CheckDefinition[]): ReplayScore {
  const names = Object.keys(expected.checks)
  if (!trace) {
    return {
      value: 0,
      passed: false,
      checks: names.map((name) => ({ name, value: 0, passed: false, message: 'the agent sent no trace' })),
      traceId: '',
      model: '',
    }
  }
  const checks: ReplayCheck[] = names.map((name) => {
    const check = available.find((c) => c.name === name)
    if (!check) return { name, value: 0, passed: false, message: `no check named ${name} is available` }
    const params = check.params.safeParse(expected.checks[name])
    if (!params.success) return { name, value: 0, passed: false, message: `parameters in the dataset do not fit ${name}: ${params.error.message}` }
    try {
      const outcome = check.run(trace, params.data)
      if (isSkipped(outcome)) return { name, value: 0, passed: false, message: `skipped: ${outcome.skipped}` }
      const spanIds = outcome.passed ? [] : detailSpanIds(outcome.detail)
      return atLeast(
        { name, value: outcome.value, passed: outcome.passed, message: outcome.detail.message, ...(spanIds.length ? { spanIds } : {}) },
        expected.minValues?.[name],
      )
    } catch (err) {
      return { name, value: 0, passed: false, message: `check failed to run: ${(err as Error).message}` }
    }
  })
  const value = checks.reduce((sum, c) => sum + c.value, 0) / Math.max(1, checks.length)
  const model =
    trace.spans
      .map((s) => genAiFields(s))
      .map((f) => f.responseModel || f.requestModel)
      .find(Boolean) ?? ''
  return { value, passed: checks.every((c) => c.passed), checks, traceId: trace.traceId, model }
}
