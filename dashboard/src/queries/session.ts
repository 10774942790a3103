import type { Storage } from '@sieve/core'
import { compareNanos, conversationOf, readSession, SESSION_TRACE_LIMIT, type Conversation, type Trace } from '@sieve/core'

/** One trace of a session as the session page lists it, read from its spans (exact, no rollup). */
export interface SessionTrace {
  traceId: string
  startTime: string
  rootName: string
  durationMs: number
  spanCount: number
  errorCount: number
  complete: boolean
}

export interface SessionView {
  sessionId: string
  /** In start order, at most SESSION_TRACE_LIMIT: the newest. */
  traces: SessionTrace[]
  /** The session holds older traces than those listed (and read into the conversation). */
  earlierTracesOmitted: boolean
  conversation: Conversation
}

/**
 * A session: the traces sharing one `gen_ai.conversation.id` / `session.id`, and the conversation
 * they hold together, read as one (a later trace's model input repeats the earlier turns; they are
 * placed once). Undefined when the project has no trace of that session.
 */
export async function session(client: Storage, projectId: string, sessionId: string): Promise<SessionView | undefined> {
  // One trace more than is shown tells whether older ones were left out.
  const read = await readSession(client, projectId, sessionId, SESSION_TRACE_LIMIT + 1)
  if (read.length === 0) return undefined
  const earlierTracesOmitted = read.length > SESSION_TRACE_LIMIT
  const traces = earlierTracesOmitted ? read.slice(read.length - SESSION_TRACE_LIMIT) : read
  const conversation = conversationOf(traces)
  if (earlierTracesOmitted) {
    conversation.truncation.unshift(`only the newest ${SESSION_TRACE_LIMIT} traces of the session are read`)
    conversation.truncated = true
  }
  return { sessionId, traces: traces.map(summary), earlierTracesOmitted, conversation }
}

function summary(trace: Trace): SessionTrace {
  let start = trace.spans[0]!.startTimeUnixNano
  let end = trace.spans[0]!.endTimeUnixNano
  for (const s of trace.spans) {
    if (compareNanos(s.startTimeUnixNano, start) < 0) start = s.startTimeUnixNano
    if (compareNanos(s.endTimeUnixNano, end) > 0) end = s.endTimeUnixNano
  }
  // The root span's name, as the `traces` rollup takes it; a trace without one names its earliest span.
  const root = trace.spans.find((s) => s.parentSpanId === '') ?? trace.spans[0]!
  return {
    traceId: trace.traceId,
    startTime: new Date(Number(BigInt(start) / 1_000_000n)).toISOString(),
    rootName: root.name,
    durationMs: Number(BigInt(end) - BigInt(start)) / 1e6,
    spanCount: trace.spans.length,
    errorCount: trace.spans.filter((s) => s.status.code === 'ERROR').length,
    complete: trace.complete,
  }
}
