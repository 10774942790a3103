/**
 * The span as every part of Sieve sees it after the collector decoded it: ids in lower-case hex,
 * times as decimal strings of Unix nanoseconds (exact, and safe in JSON), attribute values typed.
 * Wire formats (OTLP JSON/protobuf, Kafka records, ClickHouse rows) convert to and from this.
 */

export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue }
export type Attributes = Record<string, AttributeValue>

export const SPAN_KINDS = ['UNSPECIFIED', 'INTERNAL', 'SERVER', 'CLIENT', 'PRODUCER', 'CONSUMER'] as const
export type SpanKind = (typeof SPAN_KINDS)[number]

export const STATUS_CODES = ['UNSET', 'OK', 'ERROR'] as const
export type StatusCode = (typeof STATUS_CODES)[number]

export interface SpanEvent {
  timeUnixNano: string
  name: string
  attributes: Attributes
  droppedAttributesCount: number
}

export interface SpanLink {
  traceId: string
  spanId: string
  traceState: string
  attributes: Attributes
  flags: number
  droppedAttributesCount: number
}

export interface Span {
  projectId: string
  traceId: string
  spanId: string
  /** '' for a root span. */
  parentSpanId: string
  traceState: string
  name: string
  kind: SpanKind
  startTimeUnixNano: string
  endTimeUnixNano: string
  status: { code: StatusCode; message: string }
  flags: number
  serviceName: string
  scope: { name: string; version: string; attributes: Attributes }
  attributes: Attributes
  resource: Attributes
  events: SpanEvent[]
  links: SpanLink[]
  droppedAttributesCount: number
  droppedEventsCount: number
  droppedLinksCount: number
}

/** All spans of one trace, as the scorer and the read API see it. */
export interface Trace {
  projectId: string
  traceId: string
  spans: Span[]
  /** false when the trace was closed by its maximum age or by eviction before its root span ended. */
  complete: boolean
}

/** Orders decimal nanosecond strings (no leading zeros) without converting them. */
export function compareNanos(a: string, b: string): number {
  if (a.length !== b.length) return a.length - b.length
  return a < b ? -1 : a > b ? 1 : 0
}

/** The earliest start among a trace's spans ('' for none). */
export function traceStart(trace: Pick<Trace, 'spans'>): string {
  let start = ''
  for (const s of trace.spans) if (!start || compareNanos(s.startTimeUnixNano, start) < 0) start = s.startTimeUnixNano
  return start
}

export function durationNs(span: Pick<Span, 'startTimeUnixNano' | 'endTimeUnixNano'>): bigint {
  return BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)
}

export function nanosToMillis(nanos: string | bigint): number {
  return Number(BigInt(nanos) / 1000n) / 1000
}
