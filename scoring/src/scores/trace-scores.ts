import { readRows, type Storage } from '@sieve/core'

/** Every score of one trace, exact (FINAL), column by column as stored: checks first, then the judge's, failures first. */
export async function readTraceScores(client: Storage, projectId: string, traceId: string): Promise<Record<string, string | number>[]> {
  return readRows<Record<string, string | number>>(
    client,
    `SELECT kind, scorer_name, scorer_version, span_id, value, passed, detail, evidence, evaluation_label, evaluation_explanation,
              judge_model, rubric_id, rubric_version, sample_reason, error, cost_usd, toString(created_at) AS created
       FROM scores FINAL WHERE project_id = {project:String} AND trace_id = {trace:String}
       ORDER BY kind = 'judge', passed, scorer_name`,
    { project: projectId, trace: traceId },
  )
}
