import { readRows, type Storage } from '@sieve/core'

/** A stored judge row of one rubric for a trace: a dimension's verdict or the rubric's weighted score. */
export interface RubricVerdictRow {
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

/** Every judge row of a rubric for one trace, newest first (any prompt version). */
export async function readRubricVerdicts(client: Storage, projectId: string, rubricId: string, traceId: string): Promise<RubricVerdictRow[]> {
  return readRows<RubricVerdictRow>(
    client,
    `SELECT scorer_name, scorer_version, JSONExtract(detail, 'level', 'Nullable(Int64)') AS level, value, passed, evaluation_label,
            evaluation_explanation, evidence, error, judge_model
     FROM scores FINAL
     WHERE project_id = {project:String} AND trace_id = {trace:String} AND kind = 'judge' AND rubric_id = {rubric:String}
     ORDER BY created_at DESC`,
    { project: projectId, trace: traceId, rubric: rubricId },
  )
}
