import type { Storage } from '@sieve/core'
import { z } from 'zod'
import type { StoredScore } from './stored-score.js'

/** Feedback rows that select a trace: each given condition must hold on the same row. */
export interface FeedbackFilter {
  /** The row's score is at or below this (thumbs down is 0 or -1; a rating scale needs its own). */
  maxScore?: number
  /** The row's comment contains this, case aside. */
  comment?: string
}

/**
 * Which traces to export. Filters combine (all must hold); with none of `score`, `failed`,
 * `failedGate` or `feedback`, any trace with a failed score (check, judge or scorecard).
 */
export interface Selection {
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

/** A trace's latest scorecard row (`kind = 'scorecard'`), as much of its detail as export reads. */
const scorecardDetail = z.object({
  card: z.string().default(''),
  failedGates: z.array(z.string()).default([]),
  items: z.array(z.object({ name: z.string(), min: z.number().optional() })).default([]),
})

export type StoredScorecard = z.output<typeof scorecardDetail>

export interface Candidate {
  traceId: string
  scores: StoredScore[]
  /** Its latest scorecard, when it has one. */
  scorecard?: StoredScorecard
  /** The lowest feedback row matching `Selection.feedback` (given only then). */
  feedback?: { score: number; comment: string }
}

/** The one scorecard row a trace has per scorer version; the latest one is read. */
const IS_SCORECARD = `kind = 'scorecard' AND scorer_name = 'scorecard'`

/**
 * A feedback row matching the filter. Always by project: feedback another project gave must
 * never select, nor be read for, a trace of this one.
 */
const FEEDBACK_MATCH = `project_id = {projectId:String}
  AND ({anyScore:UInt8} = 1 OR score <= {maxScore:Float64})
  AND positionCaseInsensitiveUTF8(comment, {comment:String}) > 0`

const feedbackParams = (f: FeedbackFilter | undefined) => ({
  anyScore: f?.maxScore === undefined ? 1 : 0,
  maxScore: f?.maxScore ?? 0,
  comment: f?.comment ?? '',
})

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
    AND ({byFeedback:UInt8} = 0 OR trace_id IN (SELECT trace_id FROM feedback FINAL WHERE ${FEEDBACK_MATCH}))
  GROUP BY trace_id
  HAVING if({score:String} = '', 1, countIf(scorer_name = {score:String} AND value < {below:Float64}) > 0)
    AND if({failed:String} = '', 1, countIf(scorer_name = {failed:String} AND passed = 0) > 0)
    AND if({gate:String} = '', 1, if({gate:String} = 'any', notEmpty(JSONExtract(card, 'failedGates', 'Array(String)')), has(JSONExtract(card, 'failedGates', 'Array(String)'), {gate:String})))
    AND if({score:String} = '' AND {failed:String} = '' AND {gate:String} = '' AND {byFeedback:UInt8} = 0, countIf(passed = 0) > 0, 1)`

const selectionParams = (s: Selection) => ({
  projectId: s.projectId,
  since: s.sinceUnixNano,
  service: s.service ?? '',
  score: s.score ?? '',
  below: s.below ?? 0,
  failed: s.failed ?? '',
  gate: s.failedGate ?? '',
  byFeedback: s.feedback ? 1 : 0,
  ...feedbackParams(s.feedback),
  path: s.datasetPath,
  limit: s.limit,
  ids: s.traceIds ?? [],
})

/** Low-scoring or failing traces, newest first, each with every score it has, not yet in the dataset. */
export async function selectTraces(client: Storage, s: Selection): Promise<Candidate[]> {
  const result = await client.query({
    query: `${selectionQuery(false)}
      ORDER BY started DESC, traceId
      LIMIT {limit:UInt32}`,
    query_params: selectionParams(s),
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ traceId: string; scores: [string, string, number, number, string][]; card: string }>()
  const feedback = s.feedback
    ? await lowestFeedback(
        client,
        s.projectId,
        rows.map((r) => r.traceId),
        s.feedback,
      )
    : new Map()
  return rows.map((r) => {
    const scorecard = readScorecard(r.card)
    const chosen = feedback.get(r.traceId)
    return {
      traceId: r.traceId,
      scores: r.scores.map(([name, kind, value, passed, configHash]) => ({ name, kind, value: Number(value), passed: Number(passed) === 1, configHash })),
      ...(scorecard ? { scorecard } : {}),
      ...(chosen ? { feedback: chosen } : {}),
    }
  })
}

/** A scorecard row's detail; a detail that is not one (another scorer's format) is no scorecard. */
function readScorecard(detail: string): StoredScorecard | undefined {
  if (!detail) return undefined
  try {
    const parsed = scorecardDetail.safeParse(JSON.parse(detail))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

/**
 * For each trace, the feedback row that selected it: the lowest-scored one matching the filter
 * (the earliest of equals), which the example records as why it was chosen.
 */
async function lowestFeedback(
  client: Storage,
  projectId: string,
  traceIds: string[],
  f: FeedbackFilter,
): Promise<Map<string, { score: number; comment: string }>> {
  if (!traceIds.length) return new Map()
  const result = await client.query({
    query: `SELECT trace_id AS traceId, argMin(tuple(score, comment), tuple(score, created_at)) AS worst
      FROM feedback FINAL
      WHERE ${FEEDBACK_MATCH} AND trace_id IN {ids:Array(String)}
      GROUP BY trace_id`,
    query_params: { projectId, ids: traceIds, ...feedbackParams(f) },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ traceId: string; worst: [number, string] }>()
  return new Map(rows.map((r) => [r.traceId, { score: Number(r.worst[0]), comment: r.worst[1] }]))
}

/** How many traces the selection matches that an earlier export already put into the dataset. */
export async function countExported(client: Storage, s: Selection): Promise<number> {
  const result = await client.query({ query: `SELECT count() AS n FROM (${selectionQuery(true)})`, query_params: selectionParams(s), format: 'JSONEachRow' })
  const [row] = await result.json<{ n: string }>()
  return Number(row?.n ?? 0)
}
