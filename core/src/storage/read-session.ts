import type { Storage } from './storage.js'
import { sessionOf } from '../genai.js'
import { compareNanos, type Trace } from '../span.js'
import { readTraces } from './read-trace.js'

/** Traces of one session read at most, by default: a session longer than that shows its newest ones. */
export const SESSION_TRACE_LIMIT = 200

/**
 * The traces of one session (spans carrying its `gen_ai.conversation.id` or `session.id`, the
 * `session_id` column), each with all its spans in start order, traces in start order. At most
 * `limit` traces: the newest, when the session holds more. A trace belongs to the session when any
 * of its spans names it (the SDK names it on the agent span only); its other spans come with it.
 *
 * `spans` rather than the `traces` rollup: `traces` is keyed by trace with no index on its
 * session_id, so finding a session there reads the project's whole column; `spans` has a bloom
 * filter on it (migrations/0001). The spans are then read by primary key (project, trace).
 */
export async function readSession(client: Storage, projectId: string, sessionId: string, limit = SESSION_TRACE_LIMIT): Promise<Trace[]> {
  if (sessionId === '') return []
  const ids = await (
    await client.query({
      query: `SELECT trace_id FROM spans FINAL
        WHERE project_id = {projectId:String} AND session_id = {sessionId:String}
        GROUP BY trace_id
        ORDER BY min(start_time) DESC, trace_id DESC
        LIMIT {limit:UInt32}`,
      query_params: { projectId, sessionId, limit },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string }>()
  if (ids.length === 0) return []
  const traces = await readTraces(
    client,
    projectId,
    ids.map((r) => r.trace_id),
  )
  // Ties broken as conversationOf breaks them, so the list and the conversation agree.
  return traces.sort((a, b) => compareNanos(a.spans[0]!.startTimeUnixNano, b.spans[0]!.startTimeUnixNano) || (a.traceId < b.traceId ? -1 : 1))
}

/**
 * The session a trace belongs to, as the `traces` rollup records it (trace-rollup.ts): a session the
 * user associated explicitly on any span (OpenLLMetry's association properties) first, then the root
 * span's, then that of the earliest span naming one; '' when none does.
 */
export function traceSessionId(trace: Trace): string {
  let best: { rank: number; start: string; id: string } | undefined
  for (const span of trace.spans) {
    const { id, associated } = sessionOf(span)
    if (!id) continue
    const rank = associated ? 0 : span.parentSpanId === '' ? 1 : 2
    if (!best || rank < best.rank || (rank === best.rank && compareNanos(span.startTimeUnixNano, best.start) < 0))
      best = { rank, start: span.startTimeUnixNano, id }
  }
  return best?.id ?? ''
}
