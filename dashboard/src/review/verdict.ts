import type { Storage } from '@sieve/core'
import type { DimensionTrust } from '@sieve/review'
import { readRubricVerdicts, type RubricVerdictRow } from '@sieve/scoring'

/** The judge's verdict on one dimension, shown beside a person's label once they gave it. */
export interface DimensionVerdict {
  dimension: string
  /** The level; null when the judge could not give one (its error says why). */
  level: number | null
  label: string
  explanation: string
  evidence: unknown
  error: string
  judgeModel: string
  version: string
  /** The dimension's trust in effect: false when it breaks a trust rule, null when never calibrated. */
  trusted: boolean | null
}

export interface JudgeVerdict {
  /** The judge scored the trace on this rubric. */
  judged: boolean
  dimensions: DimensionVerdict[]
  /** The rubric's weighted score, when every dimension had a level. */
  overall: { value: number; passed: boolean } | null
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The judge's verdict on a trace for one rubric as stored: per dimension the latest row (any prompt
 * version), and the rubric's weighted score. The review API gives it only after the reviewer's label.
 */
export async function judgeVerdict(
  client: Storage,
  projectId: string,
  rubricId: string,
  traceId: string,
  trust: ReadonlyMap<string, DimensionTrust>,
): Promise<JudgeVerdict> {
  const found = await readRubricVerdicts(client, projectId, rubricId, traceId)
  const latest = new Map<string, RubricVerdictRow>()
  for (const r of found) if (!latest.has(r.scorer_name)) latest.set(r.scorer_name, r)
  const rubricRow = latest.get(rubricId)
  latest.delete(rubricId)
  return {
    judged: found.length > 0,
    dimensions: [...latest.values()].map((r) => ({
      dimension: r.scorer_name.slice(rubricId.length + 1),
      level: r.level === null ? null : Number(r.level),
      label: r.evaluation_label,
      explanation: r.evaluation_explanation,
      evidence: parsed(r.evidence),
      error: r.error,
      judgeModel: r.judge_model,
      version: r.scorer_version,
      trusted: trust.get(r.scorer_name)?.trusted ?? null,
    })),
    overall: rubricRow && !rubricRow.error ? { value: Number(rubricRow.value), passed: Number(rubricRow.passed) === 1 } : null,
  }
}
