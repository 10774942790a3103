import { readRows } from './read-rows.js'
import type { Storage } from './storage.js'

/** Every feedback row of one trace, exact (FINAL), oldest first, but those of the `withdrawn` source (labels taken back). */
export async function readTraceFeedback(client: Storage, projectId: string, traceId: string, withdrawn: string): Promise<Record<string, string | number>[]> {
  return readRows<Record<string, string | number>>(
    client,
    `SELECT feedback_id, span_id, score, comment, source, user_id, toString(created_at) AS created
       FROM feedback FINAL WHERE project_id = {project:String} AND trace_id = {trace:String} AND source != {withdrawn:String}
       ORDER BY created_at`,
    { project: projectId, trace: traceId, withdrawn },
  )
}
