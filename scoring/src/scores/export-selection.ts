import { FEEDBACK_FILTER_SQL, feedbackFilterParams, type FeedbackFilter, type Storage } from '@sieve/core'

/**
 * Which traces to export. Filters combine (all must hold); with none of `score`, `failed`,
 * `failedGate` or `feedback`, any trace with a failed score (check, judge or scorecard).
 */
export interface ScoreSelection {
  projectId: string
  /** Scorer name whose value must be below `below` (a check, a judge rubric or `rubric.dimension`), passed or not. */
  score?: string
  below?: number
  /** Score that must have failed. */
  failed?: string
  /** A gate the trace's latest scorecard failed (a check, `<rubric>` or `<rubric>.<dimension>`), or `any`. */
  failedGate?: string
  /** Traces with a feedback row like this. */
  feedback?: FeedbackFilter
  sinceUnixNano: string
  service?: string
  limit: number
  /** Only these traces (the dashboard's "export to dataset" selection); all when absent. */
  traceIds?: string[]
  /** Traces already exported into this dataset file are left out. */
  datasetPath: string
}

/** The one scorecard row a trace has per scorer version; the latest one is read. */
const IS_SCORECARD = `kind = 'scorecard' AND scorer_name = 'scorecard'`

/**
 * The selection's rows, one per trace: those not yet exported into the dataset, or (`exported`)
 * those already there. Calibration rows (`kind = 'calibration'`, `sieve judge calibrate`) belong to
 * no trace and are never read.
 */
const selectionQuery = (exported: boolean) => `SELECT trace_id AS traceId,
    groupArray(tuple(scorer_name, kind, value, passed, config_hash)) AS scores,
    argMaxIf(detail, created_at, ${IS_SCORECARD}) AS card,
    max(trace_start_time) AS started
  FROM scores FINAL
  WHERE project_id = {projectId:String}
    AND error = '' AND kind != 'calibration' AND trace_id != ''
    AND trace_start_time >= fromUnixTimestamp64Nano({since:Int64}, 'UTC')
    AND ({service:String} = '' OR service_name = {service:String})
    AND (empty({ids:Array(String)}) OR trace_id IN {ids:Array(String)})
    AND trace_id ${exported ? 'IN' : 'NOT IN'} (SELECT trace_id FROM exports FINAL WHERE project_id = {projectId:String} AND dataset_path = {path:String})
    AND ({byFeedback:UInt8} = 0 OR trace_id IN (SELECT trace_id FROM feedback FINAL WHERE ${FEEDBACK_FILTER_SQL}))
  GROUP BY trace_id
  HAVING if({score:String} = '', 1, countIf(scorer_name = {score:String} AND value < {below:Float64}) > 0)
    AND if({failed:String} = '', 1, countIf(scorer_name = {failed:String} AND passed = 0) > 0)
    AND if({gate:String} = '', 1, if({gate:String} = 'any', notEmpty(JSONExtract(card, 'failedGates', 'Array(String)')), has(JSONExtract(card, 'failedGates', 'Array(String)'), {gate:String})))
    AND if({score:String} = '' AND {failed:String} = '' AND {gate:String} = '' AND {byFeedback:UInt8} = 0, countIf(passed = 0) > 0, 1)`

const selectionParams = (s: ScoreSelection) => ({
  projectId: s.projectId,
  since: s.sinceUnixNano,
  service: s.service ?? '',
  score: s.score ?? '',
  below: s.below ?? 0,
  failed: s.failed ?? '',
  gate: s.failedGate ?? '',
  byFeedback: s.feedback ? 1 : 0,
  ...feedbackFilterParams(s.feedback),
  path: s.datasetPath,
  limit: s.limit,
  ids: s.traceIds ?? [],
})

/** The selection's rows, newest first: each trace with every score it has and its latest scorecard's detail. */
export async function selectScoreRows(
  client: Storage,
  s: ScoreSelection,
): Promise<{ traceId: string; scores: [string, string, number, number, string][]; card: string }[]> {
  const result = await client.query({
    query: `${selectionQuery(false)}
      ORDER BY started DESC, traceId
      LIMIT {limit:UInt32}`,
    query_params: selectionParams(s),
    format: 'JSONEachRow',
  })
  return result.json<{ traceId: string; scores: [string, string, number, number, string][]; card: string }>()
}

/** How many traces the selection matches that an earlier export already put into the dataset. */
export async function countExportedTraces(client: Storage, s: ScoreSelection): Promise<number> {
  const result = await client.query({ query: `SELECT count() AS n FROM (${selectionQuery(true)})`, query_params: selectionParams(s), format: 'JSONEachRow' })
  const [row] = await result.json<{ n: string }>()
  return Number(row?.n ?? 0)
}
