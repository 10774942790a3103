import type { Storage } from '@sieve/core'

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
