import type { Storage } from '@sieve/core'
import type { ScoreSeen } from '../scorecard/scorecard.js'

/**
 * A trace's scores of one kind as a scorecard reads them: the latest row of each trace-level score
 * (re-scoring replaces, see migrations/0003), the error column kept so an error is never a fail.
 */
export async function storedScoresSeen(storage: Storage, projectId: string, traceId: string, kind: 'deterministic' | 'judge'): Promise<ScoreSeen[]> {
  const result = await storage.query({
    query: `SELECT scorer_name AS name, argMax(value, created_at) AS value, argMax(passed, created_at) AS passed, argMax(error, created_at) AS error
            FROM scores
            WHERE project_id = {projectId:String} AND trace_id = {traceId:String} AND kind = {kind:String} AND span_id = ''
            GROUP BY scorer_name`,
    query_params: { projectId, traceId: traceId.toLowerCase(), kind },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ name: string; value: number; passed: number; error: string }>()
  return rows.map((r) => ({ name: r.name, value: Number(r.value), passed: Number(r.passed) === 1, ...(r.error ? { error: r.error } : {}) }))
}
