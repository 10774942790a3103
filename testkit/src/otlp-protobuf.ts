import type { AttributeValue, Span } from '@sieve/core'
import { SPAN_KINDS, STATUS_CODES } from '@sieve/core'

/*
 * OTLP protobuf written by hand, for tests that need wire layouts an SDK never produces (a
 * resource after its spans, values the receiver rejects) or many spans fast. Covers the span
 * fields tests set: ids, name, kind, times, status, events, string/bool/number/array attributes.
 */

function varint(n: bigint): number[] {
  const out: number[] = []
  while (n >= 0x80n) {
    out.push(Number(n & 0x7fn) | 0x80)
    n >>= 7n
  }
  out.push(Number(n))
  return out
}

/** A length-delimited field. */
export const field = (no: number, body: Buffer | string): Buffer => {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body
  return Buffer.concat([Buffer.from([...varint(BigInt((no << 3) | 2)), ...varint(BigInt(bytes.length))]), bytes])
}
const varintField = (no: number, value: number): Buffer => Buffer.from([...varint(BigInt(no << 3)), ...varint(BigInt(value))])
const fixed64Field = (no: number, decimal: string): Buffer => {
  const out = Buffer.alloc(9)
  out[0] = (no << 3) | 1
  out.writeBigUInt64LE(BigInt(decimal), 1)
  return out
}

function anyValue(value: AttributeValue): Buffer {
  if (typeof value === 'string') return field(1, value)
  if (Array.isArray(value)) return field(5, Buffer.concat(value.map((v) => field(1, anyValue(v)))))
  if (typeof value === 'boolean') return varintField(2, value ? 1 : 0)
  if (typeof value === 'number' && Number.isInteger(value)) return varintField(3, value)
  if (typeof value === 'number') {
    const out = Buffer.alloc(9)
    out[0] = (4 << 3) | 1
    out.writeDoubleLE(value, 1)
    return out
  }
  throw new Error(`otlp-protobuf test helper: unsupported attribute value ${JSON.stringify(value)}`)
}

export const keyValues = (no: number, attributes: Record<string, AttributeValue>): Buffer[] =>
  Object.entries(attributes).map(([key, value]) => field(no, Buffer.concat([field(1, key), field(2, anyValue(value))])))

/** A `Span` message (the field body, without its tag). */
export function spanMessage(span: Span): Buffer {
  return Buffer.concat([
    field(1, Buffer.from(span.traceId, 'hex')),
    field(2, Buffer.from(span.spanId, 'hex')),
    ...(span.parentSpanId ? [field(4, Buffer.from(span.parentSpanId, 'hex'))] : []),
    field(5, span.name),
    varintField(6, SPAN_KINDS.indexOf(span.kind)),
    fixed64Field(7, span.startTimeUnixNano),
    fixed64Field(8, span.endTimeUnixNano),
    ...keyValues(9, span.attributes),
    ...span.events.map((e) => field(11, Buffer.concat([fixed64Field(1, e.timeUnixNano), field(2, e.name), ...keyValues(3, e.attributes)]))),
    field(15, Buffer.concat([field(2, span.status.message), varintField(3, STATUS_CODES.indexOf(span.status.code))])),
  ])
}

export const resourceMessage = (attributes: Record<string, AttributeValue>): Buffer => Buffer.concat(keyValues(1, attributes))
export const scopeMessage = (scope: Span['scope']): Buffer => Buffer.concat([field(1, scope.name), field(2, scope.version)])

/** An ExportTraceServiceRequest: one ResourceSpans with one ScopeSpans per distinct resource and scope, in order. */
export function protobufRequest(spans: Span[]): Buffer {
  const resources = new Map<string, Map<string, Span[]>>()
  for (const span of spans) {
    const r = JSON.stringify(span.resource)
    const s = JSON.stringify([span.scope.name, span.scope.version])
    if (!resources.has(r)) resources.set(r, new Map())
    const scopes = resources.get(r)!
    if (!scopes.has(s)) scopes.set(s, [])
    scopes.get(s)!.push(span)
  }
  const out: Buffer[] = []
  for (const scopes of resources.values()) {
    const first = [...scopes.values()][0]![0]!
    const scopeSpans = [...scopes.values()].map((group) =>
      field(2, Buffer.concat([field(1, scopeMessage(group[0]!.scope)), ...group.map((s) => field(2, spanMessage(s)))])),
    )
    out.push(field(1, Buffer.concat([field(1, resourceMessage(first.resource)), ...scopeSpans])))
  }
  return Buffer.concat(out)
}
