import type { Storage } from './storage.js'
import type { TraceKey } from './trace-rollup.js'

/** A trace with spans that arrived since a given time (see `tracesArrivedSince`). */
export interface ArrivedTrace extends TraceKey {
  /** When the first and the last of those spans arrived (`ingested_at`, Unix ms). */
  firstArrivalMs: number
  lastArrivalMs: number
  /** Its deterministic scores were stored before (it was scored, then got spans). Only with `unscored`. */
  scored: boolean
}

export interface ArrivedSinceQuery {
  /** Unix ms: spans that arrived at or after it. */
  sinceMs: number
  limit: number
  /** Only traces never scored by the deterministic checks, or scored before their last span arrived. */
  unscored?: boolean
}

const ARRIVED = `SELECT project_id, trace_id,
    toUnixTimestamp64Milli(min(ingested_at)) AS first_ms, toUnixTimestamp64Milli(max(ingested_at)) AS last_ms
  FROM spans
  WHERE ingested_at >= fromUnixTimestamp64Milli({since:Int64})
  GROUP BY project_id, trace_id`

/**
 * Traces with a span that arrived (`spans.ingested_at`) at or after `sinceMs`, those with the
 * earliest such span first, at most `limit`: what start-up recovery re-does (see progress.ts). No
 * FINAL: a span delivered twice counts by its latest arrival either way. The `ingested_at` skip
 * index (0011) passes over the parts that hold only older spans; scores are looked up by key, for
 * the arrived traces only.
 */
export async function tracesArrivedSince(client: Storage, { sinceMs, limit, unscored = false }: ArrivedSinceQuery): Promise<ArrivedTrace[]> {
  const query = unscored
    ? `SELECT a.project_id AS project_id, a.trace_id AS trace_id, a.first_ms AS first_ms, a.last_ms AS last_ms, s.scored_ms AS scored_ms
      FROM (${ARRIVED}) AS a
      LEFT JOIN (
        SELECT project_id, trace_id, toUnixTimestamp64Milli(max(created_at)) AS scored_ms
        FROM scores
        WHERE kind = 'deterministic'
          AND (project_id, trace_id) IN (SELECT project_id, trace_id FROM spans WHERE ingested_at >= fromUnixTimestamp64Milli({since:Int64}))
        GROUP BY project_id, trace_id
      ) AS s ON a.project_id = s.project_id AND a.trace_id = s.trace_id
      -- A trace with no scores joins 0.
      WHERE s.scored_ms < a.last_ms
      ORDER BY first_ms, project_id, trace_id
      LIMIT {limit:UInt32}`
    : `${ARRIVED} ORDER BY first_ms, project_id, trace_id LIMIT {limit:UInt32}`
  const rows = await (await client.query({ query, query_params: { since: Math.floor(sinceMs), limit }, format: 'JSONEachRow' })).json<{
    project_id: string
    trace_id: string
    first_ms: string | number
    last_ms: string | number
    scored_ms?: string | number
  }>()
  return rows.map((r) => ({
    projectId: r.project_id,
    traceId: r.trace_id,
    firstArrivalMs: Number(r.first_ms),
    lastArrivalMs: Number(r.last_ms),
    scored: Number(r.scored_ms ?? 0) > 0,
  }))
}
