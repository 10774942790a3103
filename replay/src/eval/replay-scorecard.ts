import { scoreCard, type Scorecard, type ScoreSeen } from '@sieve/scoring'
import type { RunJudgement } from './replay-judge.js'
import type { ReplayCheck } from './score-replay.js'

/** A run's scorecard verdict, as the eval report shows it. */
export interface RunScorecard {
  card: string
  value: number
  passed: boolean
  failedGates: string[]
  /** The card's hard gates, failed or not. */
  gates: string[]
  /** Items the run has no score for (a check the example does not expect, the judge off or failing). */
  missing: string[]
}

/** The judge's verdict on a run under the names its scores carry online: `<rubric>` and `<rubric>.<dimension>`. */
function judgeSeen(j: RunJudgement): ScoreSeen[] {
  const dimensions = Object.entries(j.dimensions).map(
    ([id, d]): ScoreSeen =>
      d.value === undefined || d.error
        ? { name: `${j.rubric}.${id}`, value: 0, passed: false, error: d.error ?? 'no verdict' }
        : { name: `${j.rubric}.${id}`, value: d.value, passed: d.passed ?? false },
  )
  const overall: ScoreSeen[] = j.score === undefined ? [] : [{ name: j.rubric, value: j.score, passed: j.score >= j.passingThreshold }]
  return [...overall, ...dimensions]
}

/**
 * The card read against a replay as the scorer reads it against a trace online: the same items,
 * weights and gates (scoreCard). The run's checks are the example's expected ones, so items naming
 * other checks are missing; a run without any scored item has no verdict.
 */
export function replayScorecard(card: Scorecard, checks: readonly ReplayCheck[], judge: RunJudgement | undefined): RunScorecard | undefined {
  const seen: ScoreSeen[] = [...checks.map((c) => ({ name: c.name, value: c.value, passed: c.passed })), ...(judge ? judgeSeen(judge) : [])]
  const result = scoreCard(card, seen)
  if (!result) return undefined
  const round = (x: number) => Math.round(x * 1000) / 1000
  return {
    card: result.card,
    value: round(result.value),
    passed: result.passed,
    failedGates: result.failedGates,
    gates: card.items.filter((i) => i.gate).map((i) => i.name),
    missing: result.missing,
  }
}
