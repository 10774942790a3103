import type { Storage } from '@sieve/core'

/** What the `scores` table says about a trace. */
export interface StoredVerdicts {
  /** The deterministic scorer has stored scores for it. */
  scored: boolean
  /** A judge score with one of the asked sample reasons is stored for it. */
  judged: boolean
}

/** Trace ids per statement: keeps each query well under ClickHouse's max_query_size. */
const TRACES_PER_QUERY = 2000

/**
 * Per trace id (lower-case), whether it was scored and whether the judge scored it for one of
 * `reasons`. Read without FINAL on purpose: a judge row replaced since (the trace judged again for
 * another reason) still says it was judged for this one until the parts merge.
 */
export async function storedVerdicts(
  storage: Storage,
  projectId: string,
  traceIds: readonly string[],
  reasons: readonly string[],
): Promise<Map<string, StoredVerdicts>> {
  const found = new Map<string, StoredVerdicts>()
  const ids = [...new Set(traceIds.map((id) => id.toLowerCase()))]
  for (let i = 0; i < ids.length; i += TRACES_PER_QUERY) {
    const result = await storage.query({
      query: `SELECT trace_id AS traceId, max(kind = 'deterministic') AS scored,
                max(kind = 'judge' AND sample_reason IN {reasons:Array(String)}) AS judged
              FROM scores
              WHERE project_id = {projectId:String} AND trace_id IN {ids:Array(String)}
              GROUP BY trace_id`,
      query_params: { projectId, ids: ids.slice(i, i + TRACES_PER_QUERY), reasons },
      format: 'JSONEachRow',
    })
    for (const row of await result.json<{ traceId: string; scored: number; judged: number }>()) {
      found.set(row.traceId, { scored: Number(row.scored) === 1, judged: Number(row.judged) === 1 })
    }
  }
  for (const id of ids) if (!found.has(id)) found.set(id, { scored: false, judged: false })
  return found
}
