import type { QueuedSpan, Span } from '@sieve/core'

/** A minimal span for assembly tests, where only ids and parentage matter. */
export function span(traceId: string, spanId: string, parentSpanId = '', projectId = 'p1'): Span {
  const start = (BigInt(Date.now()) * 1_000_000n).toString()
  return {
    projectId, traceId, spanId, parentSpanId, traceState: '', name: parentSpanId ? `child ${spanId}` : 'invoke_agent',
    kind: 'INTERNAL', startTimeUnixNano: start, endTimeUnixNano: start, status: { code: 'UNSET', message: '' }, flags: 1,
    serviceName: 'svc', scope: { name: 't', version: '1', attributes: {} }, attributes: {}, resource: {}, events: [], links: [],
    droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
  }
}

/** Spans with their queue positions, numbered from `first` in one partition. */
export function queued(spans: Span[], first: number, partition = 0): QueuedSpan[] {
  return spans.map((s, i) => ({ span: s, partition, offset: String(first + i) }))
}
