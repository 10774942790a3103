import { exampleJudge, type ExampleJudge } from './judge-figures.js'
import type { RunJudgement } from './replay-judge.js'
import type { RunScorecard } from './replay-scorecard.js'
import type { ReplayCheck, ReplayScore } from './score-replay.js'

/** One run of an example (`sieve eval`) or of a scenario (`sieve simulate`), decided. */
export interface RunResult {
  /** Mean of the checks' values; the judge's weighted score for an example with no checks. */
  value: number
  passed: boolean
  /** Neither a check nor a judge verdict: an example with only a judge rubric whose judging failed. */
  unscored?: true
  /** The agent crashed or timed out: no score, kept out of means and pass rates (the reason is in `error`). */
  errored?: true
  /** The judge was not asked: the cost ceiling (--max-cost) was reached. */
  notJudged?: true
  traceId: string
  checks: ReplayCheck[]
  judge?: RunJudgement
  /** The agent's scorecard over the run's checks and judge verdict, when one is configured. */
  scorecard?: RunScorecard
  error?: string
}

/** What a set of runs adds up to: mean and pass rate over the scored runs, and a status. */
export interface RunFigures {
  /** Over the scored runs. */
  mean: number
  passRate: number
  /** Runs that ended in an agent crash or timeout. */
  errored: number
  /**
   * pass: every run passed; unstable: some did (an instability); fail: none did (a capability gap);
   * unscored: no run could be scored (judge errors on a judge-only example); errored: every run
   * crashed or timed out.
   */
  status: 'pass' | 'unstable' | 'fail' | 'unscored' | 'errored'
  judge?: ExampleJudge
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0)
const round = (x: number) => Math.round(x * 1000) / 1000

/**
 * One run's outcome: the checks decide, and the judge too when it gave a verdict. A judge error
 * is not a low score: the run then stands on its checks alone, or is unscored when it has none.
 */
export function runResult(
  score: ReplayScore,
  judge: RunJudgement | undefined,
  error: string | undefined,
  notJudged: boolean,
  scorecard?: RunScorecard,
): RunResult {
  // An errored run was cut short: what its checks saw of it is no result, and none is listed.
  const base = {
    traceId: score.traceId,
    checks: error ? [] : score.checks,
    ...(judge ? { judge } : {}),
    ...(scorecard ? { scorecard } : {}),
    ...(error ? { error } : {}),
    ...(notJudged ? { notJudged: true as const } : {}),
  }
  const result = checksAndJudge(base, score, judge, error, notJudged)
  // A failed scorecard (a hard gate, or its weighted total) fails a run that was scored at all.
  return scorecard && !scorecard.passed && !result.errored && !result.unscored ? { ...result, passed: false } : result
}

function checksAndJudge(
  base: Omit<RunResult, 'value' | 'passed'>,
  score: ReplayScore,
  judge: RunJudgement | undefined,
  error: string | undefined,
  notJudged: boolean,
): RunResult {
  // A crash or a timeout says nothing about the agent's answers: not a zero, not a pass.
  if (error) return { ...base, value: 0, passed: false, errored: true }
  // Past the cost ceiling, an example only the judge scores has no score at all.
  if (notJudged && !score.checks.length) return { ...base, value: 0, passed: false, unscored: true }
  if (score.checks.length) return { ...base, value: score.value, passed: score.passed && !error && judge?.passed !== false }
  // An example with only a judge rubric: no trace or a failed agent is a failed run, a judge error is none.
  if (!judge || error) return { ...base, value: judge?.score ?? 0, passed: false }
  if (judge.passed === undefined) return { ...base, value: 0, passed: false, unscored: true }
  return { ...base, value: judge.score ?? 0, passed: judge.passed }
}

export function runFigures(runs: readonly RunResult[]): RunFigures {
  const errored = runs.filter((r) => r.errored).length
  const scored = runs.filter((r) => !r.unscored && !r.errored)
  const passRate = scored.length ? scored.filter((r) => r.passed).length / scored.length : 0
  const status = errored === runs.length ? 'errored' : !scored.length ? 'unscored' : passRate === 1 ? 'pass' : passRate === 0 ? 'fail' : 'unstable'
  const judge = exampleJudge(runs.flatMap((r) => (r.judge ? [r.judge] : [])))
  return { mean: round(mean(scored.map((r) => r.value))), passRate: round(passRate), errored, status, ...(judge ? { judge } : {}) }
}

/** Examples (or scenario × templates) that were scored: some run passed or failed, not all errored or unscored. */
const SCORED: ReadonlySet<string> = new Set(['pass', 'unstable', 'fail'])

/** The whole report's figures: the mean of the scored items' means and pass rates, and runs counted. */
export function overallFigures(items: readonly { status: string; mean: number; passRate: number; runs: readonly RunResult[] }[]) {
  const scored = items.filter((e) => SCORED.has(e.status))
  const runs = items.flatMap((e) => e.runs)
  return {
    mean: round(mean(scored.map((e) => e.mean))),
    passRate: round(mean(scored.map((e) => e.passRate))),
    runs: runs.length,
    errored: runs.filter((r) => r.errored).length,
    notJudged: runs.filter((r) => r.notJudged).length,
  }
}

export const isScored = (item: { status: string }): boolean => SCORED.has(item.status)
