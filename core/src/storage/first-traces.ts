import type { Storage } from './storage.js'

/** One of a user's first traces: its id and start (Unix nanoseconds, as a decimal string). */
export interface UserTraceRow {
  user: string
  traceId: string
  startNs: string
}

/**
 * The first `n` traces of each user of a project, by start time then trace id. Rows of the `traces`
 * rollup are read without FINAL: a trace rewritten by the ingester has several rows until they
 * merge, and grouping by trace id takes the earliest start of any of them (a late span only moves a
 * trace's start earlier).
 */
export async function firstTracesOfUsers(storage: Storage, projectId: string, users: readonly string[], n: number): Promise<UserTraceRow[]> {
  const result = await storage.query({
    query: `SELECT user_id AS user, trace_id AS traceId, toString(toUnixTimestamp64Nano(min(start_time))) AS startNs
              FROM traces
              WHERE project_id = {projectId:String} AND user_id IN {users:Array(String)}
              GROUP BY user_id, trace_id
              ORDER BY user_id, min(start_time), trace_id
              LIMIT {n:UInt32} BY user_id`,
    query_params: { projectId, users, n },
    format: 'JSONEachRow',
  })
  return result.json<UserTraceRow>()
}
