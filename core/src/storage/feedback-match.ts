import type { Storage } from './storage.js'

/** Feedback rows that select a trace: each given condition must hold on the same row. */
export interface FeedbackFilter {
  /** The row's score is at or below this (thumbs down is 0 or -1; a rating scale needs its own). */
  maxScore?: number
  /** The row's comment contains this, case aside. */
  comment?: string
}

/**
 * A feedback row matching the filter. Always by project: feedback another project gave must
 * never select, nor be read for, a trace of this one.
 */
export const FEEDBACK_FILTER_SQL = `project_id = {projectId:String}
  AND ({anyScore:UInt8} = 1 OR score <= {maxScore:Float64})
  AND positionCaseInsensitiveUTF8(comment, {comment:String}) > 0`

/** The parameters FEEDBACK_FILTER_SQL binds. */
export const feedbackFilterParams = (f: FeedbackFilter | undefined) => ({
  anyScore: f?.maxScore === undefined ? 1 : 0,
  maxScore: f?.maxScore ?? 0,
  comment: f?.comment ?? '',
})

/**
 * For each trace, the feedback row that selected it: the lowest-scored one matching the filter
 * (the earliest of equals), which the example records as why it was chosen.
 */
export async function lowestFeedback(
  client: Storage,
  projectId: string,
  traceIds: string[],
  f: FeedbackFilter,
): Promise<Map<string, { score: number; comment: string }>> {
  if (!traceIds.length) return new Map()
  const result = await client.query({
    query: `SELECT trace_id AS traceId, argMin(tuple(score, comment), tuple(score, created_at)) AS worst
      FROM feedback FINAL
      WHERE ${FEEDBACK_FILTER_SQL} AND trace_id IN {ids:Array(String)}
      GROUP BY trace_id`,
    query_params: { projectId, ids: traceIds, ...feedbackFilterParams(f) },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ traceId: string; worst: [number, string] }>()
  return new Map(rows.map((r) => [r.traceId, { score: Number(r.worst[0]), comment: r.worst[1] }]))
}
