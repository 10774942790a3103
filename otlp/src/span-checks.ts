import type { Span } from '@sieve/core'

const ZERO_TRACE_ID = '0'.repeat(32)
const ZERO_SPAN_ID = '0'.repeat(16)

/**
 * The span times Sieve stores, in Unix nanoseconds: from 1973-03-03T09:46:40Z (10^8 s) up to,
 * not including, 2100-01-01T00:00:00Z. Below, ClickHouse cannot parse the `seconds.fraction`
 * text a DateTime64 is written as (eight digits of seconds read as a date). Above, the retention
 * TTL, which counts in 32-bit seconds (DateTime ends in 2106-02-07), wraps round to 1970 and the
 * next merge deletes the span: 2100 leaves room for six years of retention.
 */
export const EARLIEST_NANOS = '100000000000000000'
export const LATEST_NANOS = '4102444800000000000'
const TIME_RANGE = '1973-03-03T09:46:40Z to 2100-01-01T00:00:00Z'

/**
 * How deep an attribute value may nest arrays and key-value lists in one another. Deeper values
 * reject their span: nothing reads them, and walking them recursively could overflow the stack.
 */
export const MAX_NESTING = 64

/** An attribute value nested deeper than MAX_NESTING; thrown by the decoders as they descend. */
export class NestingError extends Error {
  constructor() {
    super(`attribute value nested deeper than ${MAX_NESTING} levels`)
  }
}

/** `a < b` for decimal strings without leading zeros, without parsing them. */
export function decimalLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b
}

/**
 * Why a decoded span cannot be stored, or undefined when it can. Ids arrive here as lower-case
 * hex of whatever length the sender used; the OTLP spec requires 16- and 8-byte non-zero ids.
 * Times are decimal strings without leading zeros.
 */
export function spanProblem(span: Span): string | undefined {
  if (span.traceId.length !== 32) return `trace id must be 16 bytes, got ${span.traceId.length / 2}`
  if (span.traceId === ZERO_TRACE_ID) return 'trace id is all zeros'
  if (span.spanId.length !== 16) return `span id must be 8 bytes, got ${span.spanId.length / 2}`
  if (span.spanId === ZERO_SPAN_ID) return 'span id is all zeros'
  if (span.parentSpanId !== '' && span.parentSpanId.length !== 16) {
    return `parent span id must be empty or 8 bytes, got ${span.parentSpanId.length / 2}`
  }
  if (span.startTimeUnixNano === '0') return 'start time is missing'
  if (span.endTimeUnixNano === '0') return 'end time is missing'
  if (decimalLess(span.endTimeUnixNano, span.startTimeUnixNano)) return 'end time is before start time'
  if (decimalLess(span.startTimeUnixNano, EARLIEST_NANOS)) return `start time ${span.startTimeUnixNano} ns is outside the times Sieve stores, ${TIME_RANGE}`
  if (!decimalLess(span.endTimeUnixNano, LATEST_NANOS)) return `end time ${span.endTimeUnixNano} ns is outside the times Sieve stores, ${TIME_RANGE}`
  for (const link of span.links) {
    if (link.traceId.length !== 32 || link.spanId.length !== 16) return 'a link needs a 16-byte trace id and an 8-byte span id'
  }
  return undefined
}

/** Per semantic conventions, a resource without `service.name` belongs to `unknown_service`. */
export function serviceNameOf(resource: Span['resource']): string {
  const name = resource['service.name']
  return typeof name === 'string' && name !== '' ? name : 'unknown_service'
}

/** A double as an attribute value: NaN and the infinities, which JSON cannot hold, by their OTLP/JSON names. */
export const doubleValue = (value: number): number | string => (Number.isFinite(value) ? value : String(value))
