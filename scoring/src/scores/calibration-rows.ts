import { readRows, type Storage } from '@sieve/core'

/**
 * The latest calibration row of a judge dimension in `scores` (kind 'calibration', trace ''): whether
 * it is trusted, its within-one agreement, and the calibration's figures as JSON.
 */
export interface CalibrationRow {
  project_id: string
  scorer_name: string
  trusted: number
  within_one: number
  detail: string
}

const TRUST_QUERY = (where: string) =>
  `SELECT project_id, scorer_name, argMax(passed, created_at) AS trusted, argMax(value, created_at) AS within_one, argMax(detail, created_at) AS detail
   FROM scores FINAL
   WHERE trace_id = '' AND kind = 'calibration'${where}
   GROUP BY project_id, scorer_name`

/** Every project's calibration rows in effect, or one project's. */
export async function readCalibrationRows(storage: Storage, projectId?: string): Promise<CalibrationRow[]> {
  const result = await storage.query({
    query: TRUST_QUERY(projectId === undefined ? '' : ' AND project_id = {project:String}'),
    query_params: projectId === undefined ? {} : { project: projectId },
    format: 'JSONEachRow',
  })
  return result.json<CalibrationRow>()
}

/** A judge dimension's calibration in effect, as the review page shows it: trust, figures (`detail`), who computed it and when. */
export interface CalibrationInEffectRow {
  scorer_name: string
  trusted: number
  detail: string
  version: string
  model: string
  source: string
  at: string
}

/** The calibration in effect of each of a project's dimensions named (`<rubric>.<dimension>`). */
export async function readCalibrationsInEffect(client: Storage, projectId: string, names: readonly string[]): Promise<CalibrationInEffectRow[]> {
  return readRows<CalibrationInEffectRow>(
    client,
    `SELECT scorer_name, argMax(passed, created_at) AS trusted, argMax(detail, created_at) AS detail, argMax(scorer_version, created_at) AS version,
              argMax(judge_model, created_at) AS model, argMax(sample_reason, created_at) AS source, toString(max(created_at)) AS at
       FROM scores FINAL
       WHERE project_id = {project:String} AND trace_id = '' AND kind = 'calibration' AND scorer_name IN {names:Array(String)}
       GROUP BY scorer_name`,
    { project: projectId, names },
  )
}

/** The configuration a dimension's calibration in effect was computed for, and who computed it (`sample_reason`). */
export interface RubricCalibrationRow {
  scorer_name: string
  rubric_version: string
  prompt_version: string
  judge_model: string
  sample_reason: string
}

/** The calibration rows in effect for a rubric's dimensions (`scores`, latest per dimension). */
export async function readRubricCalibrationRows(storage: Storage, projectId: string, rubricId: string): Promise<RubricCalibrationRow[]> {
  const result = await storage.query({
    query: `SELECT scorer_name, argMax(rubric_version, created_at) AS rubric_version, argMax(prompt_version, created_at) AS prompt_version,
              argMax(judge_model, created_at) AS judge_model, argMax(sample_reason, created_at) AS sample_reason
            FROM scores FINAL
            WHERE project_id = {project:String} AND trace_id = '' AND kind = 'calibration' AND rubric_id = {rubric:String}
            GROUP BY scorer_name`,
    query_params: { project: projectId, rubric: rubricId },
    format: 'JSONEachRow',
  })
  return result.json<RubricCalibrationRow>()
}
