import type { QueuedSpan, Span } from '@sieve/core'
import { blankSpan } from '@sieve/testkit'

/** A minimal span for assembly tests, where only ids and parentage matter. */
export function span(traceId: string, spanId: string, parentSpanId = '', projectId = 'p1'): Span {
  const start = (BigInt(Date.now()) * 1_000_000n).toString()
  return blankSpan({
    projectId,
    traceId,
    spanId,
    parentSpanId,
    name: parentSpanId ? `child ${spanId}` : 'invoke_agent',
    startTimeUnixNano: start,
    endTimeUnixNano: start,
    flags: 1,
    serviceName: 'svc',
    scope: { name: 't', version: '1', attributes: {} },
  })
}

/** Spans with their queue positions, numbered from `first` in one partition. */
export function queued(spans: Span[], first: number, partition = 0): QueuedSpan[] {
  return spans.map((s, i) => ({ span: s, partition, offset: String(first + i), bytes: 1000 }))
}
