import { compareNanos, type SpanEvent, type Trace } from '../span.js'
import { nanosToDateTime64 } from './span-row.js'
import type { Storage } from './storage.js'

/**
 * A GenAI event an instrumentation sent as an OTLP log record, for the span it names
 * (`@sieve/otlp`'s decodeLogsRequest reads them). Stored in `span_log_events`
 * (migrations/0014) and read back into their span's events by readTraces.
 */
export interface SpanLogEvent {
  traceId: string
  spanId: string
  /** Its place among the events of its request: instrumentations emit a call's messages in order, often within one clock tick. */
  seq: number
  event: SpanEvent
}

export async function insertSpanLogEvents(client: Storage, projectId: string, events: readonly SpanLogEvent[]): Promise<void> {
  if (events.length === 0) return
  await client.insert({
    table: 'span_log_events',
    format: 'JSONEachRow',
    values: events.map(({ traceId, spanId, seq, event }) => ({
      project_id: projectId,
      trace_id: traceId,
      span_id: spanId,
      time: nanosToDateTime64(event.timeUnixNano),
      name: event.name,
      seq,
      event: JSON.stringify(event),
    })),
  })
}

/** The log events of these traces, by `traceId \0 spanId`, each span's in time order, then as they arrived: by request, then as sent in it. */
export async function readSpanLogEvents(client: Storage, projectId: string, traceIds: readonly string[]): Promise<Map<string, SpanEvent[]>> {
  const rows = await (
    await client.query({
      query: `SELECT trace_id, span_id, event FROM span_log_events FINAL
        WHERE project_id = {projectId:String} AND trace_id IN {traceIds:Array(String)}
        ORDER BY time, received_at, seq`,
      query_params: { projectId, traceIds },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string; span_id: string; event: string }>()
  return bySpanOf(rows.map((row) => ({ traceId: row.trace_id, spanId: row.span_id, event: JSON.parse(row.event) as SpanEvent })))
}

/** Events by `traceId \0 spanId`, each span's in the order given: what withSpanLogEvents takes. */
export function bySpanOf(events: Iterable<Pick<SpanLogEvent, 'traceId' | 'spanId' | 'event'>>): Map<string, SpanEvent[]> {
  const bySpan = new Map<string, SpanEvent[]>()
  for (const { traceId, spanId, event } of events) {
    const key = `${traceId}\u0000${spanId}`
    const held = bySpan.get(key)
    if (held) held.push(event)
    else bySpan.set(key, [event])
  }
  return bySpan
}

/**
 * The trace with each span's log events (from readSpanLogEvents) added to its events, all in time
 * order, a span's own first among equal times. An event the span holds already is not added again
 * (a trace read back from storage comes joined, and the scorer joins what it restores). A new
 * trace where any span gains events; the argument is left as it was.
 */
export function withSpanLogEvents(trace: Trace, events: ReadonlyMap<string, SpanEvent[]> | undefined): Trace {
  if (!events || events.size === 0) return trace
  let joined = false
  const spans = trace.spans.map((span) => {
    const logged = events.get(`${trace.traceId}\u0000${span.spanId}`)
    if (!logged) return span
    const held = new Set(span.events.map(eventKey))
    const added = logged.filter((event) => !held.has(eventKey(event)))
    if (added.length === 0) return span
    joined = true
    return { ...span, events: [...span.events, ...added].sort((a, b) => compareNanos(a.timeUnixNano, b.timeUnixNano)) }
  })
  return joined ? { ...trace, spans } : trace
}

const eventKey = (event: SpanEvent): string => `${event.timeUnixNano}\u0000${event.name}\u0000${JSON.stringify(event.attributes)}`
