import type { Storage } from '@sieve/core'
import type { DimensionTrust } from '@sieve/review'
import { rows } from '../db.js'

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

interface VerdictRow {
  scorer_name: string
  scorer_version: string
  level: number | null
  value: number
  passed: number
  evaluation_label: string
  evaluation_explanation: string
  evidence: string
  error: string
  judge_model: string
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
  const found = await rows<VerdictRow>(
    client,
    `SELECT scorer_name, scorer_version, JSONExtract(detail, 'level', 'Nullable(Int64)') AS level, value, passed, evaluation_label,
            evaluation_explanation, evidence, error, judge_model
     FROM scores FINAL
     WHERE project_id = {project:String} AND trace_id = {trace:String} AND kind = 'judge' AND rubric_id = {rubric:String}
     ORDER BY created_at DESC`,
    { project: projectId, trace: traceId, rubric: rubricId },
  )
  const latest = new Map<string, VerdictRow>()
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
