import type { RunJudgement } from './replay-judge.js'

/** The judge's results for one example across its repeats. */
export interface ExampleJudge {
  /** `rubric-id@version` of the runs' rubric. */
  rubric: string
  /** Runs with a weighted score. */
  judged: number
  /** Runs the judge could not score (provider down, invalid answers after retry, panel split). */
  errors: number
  /** Mean weighted score over the judged runs; absent when none was judged. */
  mean?: number
  /** Share of judged runs at or above the passing threshold and every floor. */
  passRate?: number
  /** Mean normalised value per dimension, over the runs with a verdict on it. */
  dimensions: Record<string, number>
  costUsd: number
}

export interface OverallJudge {
  model: string
  mean?: number
  passRate?: number
  judgedRuns: number
  errors: number
  /** Completions requested, retries included. */
  calls: number
  inputTokens: number
  outputTokens: number
  /** From judge.prices; 0 for a model without a price there. */
  costUsd: number
  priced: boolean
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
const round = (x: number) => Math.round(x * 1000) / 1000

export function exampleJudge(runs: readonly RunJudgement[]): ExampleJudge | undefined {
  if (!runs.length) return undefined
  const judged = runs.filter((r) => r.score !== undefined && r.passed !== undefined)
  const ids = [...new Set(runs.flatMap((r) => Object.keys(r.dimensions)))]
  const dimensions: Record<string, number> = {}
  for (const id of ids) {
    const values = runs.flatMap((r) => (r.dimensions[id]?.value === undefined ? [] : [r.dimensions[id].value]))
    if (values.length) dimensions[id] = round(mean(values))
  }
  return {
    rubric: `${runs[0]!.rubric}@${runs[0]!.rubricVersion}`,
    judged: judged.length,
    errors: runs.filter((r) => r.error).length,
    ...(judged.length ? { mean: round(mean(judged.map((r) => r.score!))), passRate: round(judged.filter((r) => r.passed).length / judged.length) } : {}),
    dimensions,
    costUsd: runs.reduce((n, r) => n + r.costUsd, 0),
  }
}

export function overallJudge(
  model: string,
  examples: ReadonlyArray<ExampleJudge | undefined>,
  runs: readonly RunJudgement[],
  usage: { calls: number; priced: boolean },
): OverallJudge {
  const judged = examples.filter((e): e is ExampleJudge => e?.mean !== undefined)
  return {
    model,
    ...(judged.length ? { mean: round(mean(judged.map((e) => e.mean!))), passRate: round(mean(judged.map((e) => e.passRate!))) } : {}),
    judgedRuns: runs.filter((r) => r.score !== undefined).length,
    errors: runs.filter((r) => r.error).length,
    calls: usage.calls,
    inputTokens: runs.reduce((n, r) => n + r.inputTokens, 0),
    outputTokens: runs.reduce((n, r) => n + r.outputTokens, 0),
    costUsd: Math.round(runs.reduce((n, r) => n + r.costUsd, 0) * 1e6) / 1e6,
    priced: usage.priced,
  }
}
