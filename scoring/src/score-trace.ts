import type { Trace } from '@sieve/core'
import { isSkipped, type CheckResult, type CheckSkipped } from './checks/check.js'
import type { ChecksConfig, ConfiguredCheck } from './config/checks-config.js'
import { scoreCard, type ScoreSeen, type ScorecardResult } from './scorecard/scorecard.js'
import { traceView } from './trace/view.js'

export interface ScoredCheck extends CheckResult {
  configHash: string
  /** Set when there is no verdict (the check threw, or what it reads is absent): stored as an error row, never as a low score. */
  error?: string
  /** What the check reads is absent from the trace (see CheckSkipped.unmeasured): `error` says what and which setting sends it. */
  unmeasured?: true
}

/** The outcome of a check, as people and metrics name it. */
export const checkOutcome = (r: ScoredCheck): 'passed' | 'failed' | 'error' | 'not_measured' =>
  r.unmeasured ? 'not_measured' : r.error ? 'error' : r.passed ? 'passed' : 'failed'

export interface TraceScore {
  trace: Trace
  profile: string
  agentName: string
  serviceName: string
  results: ScoredCheck[]
  skipped: CheckSkipped[]
  /** The agent's scorecard on the checks (the judge's items come later); absent without a card or a scored item. */
  scorecard?: ScorecardResult
}

/** What a scorecard reads of check results: an errored check is no score. */
export function checksSeen(results: readonly ScoredCheck[]): ScoreSeen[] {
  return results.map((r) => ({ name: r.name, value: r.value, passed: r.passed, ...(r.error ? { error: r.error } : {}) }))
}

function runOne(trace: Trace, configured: ConfiguredCheck): ScoredCheck | CheckSkipped {
  const { check, params, configHash } = configured
  try {
    const outcome = check.run(trace, params)
    if (isSkipped(outcome)) {
      if (!outcome.unmeasured) return outcome
      const message = `not measured: ${outcome.skipped}`
      return { name: outcome.name, version: outcome.version, value: 0, passed: false, detail: { message }, configHash, error: message, unmeasured: true }
    }
    return { name: outcome.name, version: outcome.version, value: outcome.value, passed: outcome.passed, detail: outcome.detail, configHash }
  } catch (err) {
    const message = `check ${check.name} failed to run: ${(err as Error).message}`
    return { name: check.name, version: check.version, value: 0, passed: false, detail: { message }, configHash, error: message }
  }
}

/**
 * Runs the checks configured for the trace's agent, and its scorecard over them. `judged` are the
 * judge's scores stored for the trace already (`sieve score` re-scoring a judged trace), so the
 * scorecard written again keeps the judge's items.
 */
export function scoreTrace(trace: Trace, config: ChecksConfig, judged: readonly ScoreSeen[] = []): TraceScore {
  const view = traceView(trace)
  const profile = config.profileFor(view.agentName, view.serviceName)
  const results: ScoredCheck[] = []
  const skipped: CheckSkipped[] = []
  for (const configured of profile.checks) {
    const outcome = runOne(trace, configured)
    if ('skipped' in outcome) skipped.push(outcome)
    else results.push(outcome)
  }
  const card = config.scorecards.cardFor(view.agentName, view.serviceName)
  const scorecard = card && scoreCard(card, judged.length ? [...checksSeen(results), ...judged] : checksSeen(results))
  return { trace, profile: profile.name, agentName: view.agentName, serviceName: view.serviceName, results, skipped, ...(scorecard ? { scorecard } : {}) }
}
