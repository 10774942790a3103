import { z } from 'zod'
import type { RunResult } from './run-verdict.js'

const fraction = z.number().min(0).max(1)

/**
 * What the gate's figures read of one run, and all a baseline keeps of it: whether it passed, each
 * expected check's pass, the scorecard's weighted total and gates, the judge's scores. An errored or
 * unscored run is kept (`status`) but counts in no figure.
 */
export const runOutcomeSchema = z.object({
  status: z.enum(['scored', 'errored', 'unscored']),
  passed: z.boolean().optional(),
  /** Check name → passed. */
  checks: z.record(z.string(), z.boolean()).default({}),
  scorecard: z.object({ value: fraction, gates: z.array(z.string()), failedGates: z.array(z.string()) }).optional(),
  judge: z
    .object({
      /** The rubric id; `version` its version. */
      rubric: z.string(),
      version: z.string(),
      score: fraction.optional(),
      /** Normalised value per dimension id. */
      dimensions: z.record(z.string(), fraction),
    })
    .optional(),
})

export type RunOutcome = z.output<typeof runOutcomeSchema>

export function runOutcome(run: RunResult): RunOutcome {
  const status = run.errored ? 'errored' : run.unscored ? 'unscored' : 'scored'
  if (status !== 'scored') return { status, checks: {} }
  const judge = run.judge && !run.judge.error ? run.judge : undefined
  const dimensions = Object.fromEntries(Object.entries(judge?.dimensions ?? {}).flatMap(([id, d]) => (d.value === undefined || d.error ? [] : [[id, d.value]])))
  return {
    status,
    passed: run.passed,
    checks: Object.fromEntries(run.checks.map((c) => [c.name, c.passed])),
    ...(run.scorecard ? { scorecard: { value: run.scorecard.value, gates: run.scorecard.gates, failedGates: run.scorecard.failedGates } } : {}),
    ...(judge
      ? { judge: { rubric: judge.rubric, version: judge.rubricVersion, ...(judge.score !== undefined ? { score: judge.score } : {}), dimensions } }
      : {}),
  }
}
