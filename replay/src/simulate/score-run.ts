import type { Trace } from '@sieve/core'
import { scoreTrace, traceView, type ChecksConfig } from '@sieve/scoring'
import { replaySession } from '../eval/replay-turns.js'
import { replayScorecard } from '../eval/replay-scorecard.js'
import type { RunJudgement } from '../eval/replay-judge.js'
import { runResult, type RunResult } from '../eval/run-verdict.js'
import { detailSpanIds, scoreReplay, type ReplayCheck } from '../eval/score-replay.js'
import { judgeFailures } from '../eval/summary-markdown.js'
import type { Conversation } from './converse.js'
import type { Scenario } from './scenario.js'

/** What failed in a run, and where when the check's detail names a span. */
export interface LocatedFailure {
  kind: 'check' | 'gate' | 'scorecard' | 'judge' | 'agent'
  name: string
  message: string
  /** The user turn (1-based) whose agent call holds the span. */
  turn?: number
  spanId?: string
}

export interface ScoredRun {
  result: RunResult
  failures: LocatedFailure[]
  /** The model the run's spans name, for the stamps and the baseline key. */
  model: string
  trace?: Trace
}

/**
 * The scorecard's check items the scenario does not expect, as the scorer reads them online: the
 * agent's configured checks with its configured parameters. A check that skipped, threw or is
 * turned off for the agent is missing from the card, never a fail.
 */
function cardChecks(trace: Trace, checks: ChecksConfig, expected: readonly ReplayCheck[]): ReplayCheck[] {
  const names = new Set(expected.map((c) => c.name))
  return scoreTrace(trace, checks).results.flatMap((r) => {
    if (names.has(r.name) || r.error) return []
    const spanIds = r.passed ? [] : detailSpanIds(r.detail)
    return [{ name: r.name, value: r.value, passed: r.passed, message: r.detail.message, ...(spanIds.length ? { spanIds } : {}) }]
  })
}

function located(c: Conversation, check: ReplayCheck): Pick<LocatedFailure, 'turn' | 'spanId'> {
  for (const spanId of check.spanIds ?? []) {
    const turn = c.turns.find((t) => t.spanIds.has(spanId))
    if (turn) return { turn: turn.turn, spanId }
  }
  return check.spanIds?.length ? { spanId: check.spanIds[0]! } : {}
}

/**
 * A run's verdict over all its turns' traces as one session: the scenario's expected checks, the
 * judge's verdict when it was asked, and the agent's scorecard over both (its check items the
 * scenario does not expect read with the agent's configured parameters).
 */
export function scoreConversation(c: Conversation, scenario: Scenario, checks: ChecksConfig, judge: RunJudgement | undefined, notJudged: boolean): ScoredRun {
  const trace = replaySession(c.traces)
  const score = scoreReplay(trace, scenario.expect, checks.available)
  const view = trace ? traceView(trace) : undefined
  const card = trace && view && !c.agentError ? checks.scorecards.cardFor(view.agentName, view.serviceName) : undefined
  const extra = card && trace ? cardChecks(trace, checks, score.checks) : []
  const scorecard = card ? replayScorecard(card, [...score.checks, ...extra], judge) : undefined
  const result = runResult(score, judge, c.agentError, notJudged, scorecard)

  const failures: LocatedFailure[] = result.checks.filter((x) => !x.passed).map((x) => ({ kind: 'check', name: x.name, message: x.message, ...located(c, x) }))
  for (const gate of scorecard?.failedGates ?? []) {
    const check = [...score.checks, ...extra].find((x) => x.name === gate)
    failures.push({ kind: 'gate', name: gate, message: check?.message ?? `the judge's ${gate} failed the gate`, ...(check ? located(c, check) : {}) })
  }
  if (scorecard && !scorecard.passed && !scorecard.failedGates.length) {
    failures.push({ kind: 'scorecard', name: scorecard.card, message: `weighted total ${scorecard.value} is below the card's passAt` })
  }
  for (const name of judgeFailures(judge)) {
    failures.push({
      kind: 'judge',
      name,
      message:
        judge!.error ??
        `${judge!.rubric} scored ${judge!.score ?? 'nothing'} (passing threshold ${judge!.passingThreshold}${judge!.belowFloor.length ? `; below the floor: ${judge!.belowFloor.join(', ')}` : ''})`,
    })
  }
  if (c.agentError) failures.push({ kind: 'agent', name: 'agent error', message: c.agentError })
  return { result, failures, model: score.model, ...(trace ? { trace } : {}) }
}
