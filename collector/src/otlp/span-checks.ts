import type { Span } from '@sieve/core'

const ZERO_TRACE_ID = '0'.repeat(32)
const ZERO_SPAN_ID = '0'.repeat(16)

/** `a < b` for decimal strings without leading zeros, without parsing them. */
function decimalLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b
}

/**
 * Why a decoded span cannot be stored, or undefined when it can. Ids arrive here as lower-case
 * hex of whatever length the sender used; the OTLP spec requires 16- and 8-byte non-zero ids.
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
