import type { Storage } from './storage.js'
import type { Trace } from '../span.js'
import { readSpanLogEvents, withSpanLogEvents } from './span-log-events.js'
import { rowToSpan, SPAN_SELECT, type SpanReadRow } from './span-row.js'

/** All spans of one trace of one project, each once, in start order; undefined when none is stored. */
export async function readTrace(client: Storage, projectId: string, traceId: string): Promise<Trace | undefined> {
  return (await readTraces(client, projectId, [traceId.toLowerCase()]))[0]
}

/**
 * Several traces of one project in one statement, each as readTrace gives it (all its spans, each
 * once, in start order; complete when its root span is stored), in the order of their first span;
 * a trace with no stored span is left out. Each span's events include the GenAI events its
 * instrumentation sent as log records (`span_log_events`), in time order. Keep the list to a few
 * thousand ids: the statements carry them all.
 */
export async function readTraces(client: Storage, projectId: string, traceIds: readonly string[]): Promise<Trace[]> {
  if (traceIds.length === 0) return []
  const [rows, logged] = await Promise.all([
    client
      .query({
        query: `SELECT ${SPAN_SELECT} FROM spans FINAL
          WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
          ORDER BY start_time, span_id`,
        query_params: { projectId, traceIds },
        format: 'JSONEachRow',
      })
      .then((result) => result.json<SpanReadRow>()),
    readSpanLogEvents(client, projectId, traceIds),
  ])
  const traces = new Map<string, Trace>()
  for (const row of rows) {
    const span = rowToSpan(row)
    let trace = traces.get(span.traceId)
    if (!trace) traces.set(span.traceId, (trace = { projectId, traceId: span.traceId, spans: [], complete: false }))
    trace.spans.push(span)
  }
  for (const trace of traces.values()) trace.complete = trace.spans.some((s) => s.parentSpanId === '')
  return [...traces.values()].map((trace) => withSpanLogEvents(trace, logged))
}
