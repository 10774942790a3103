import {
  SPAN_KINDS,
  STATUS_CODES,
  setAttribute,
  type AttributeValue,
  type Attributes,
  type Span,
  type SpanEvent,
  type SpanKind,
  type SpanLink,
  type StatusCode,
} from '@sieve/core'
import { DecodedRequest, RequestAccount, spanPath } from './decoded-request.js'
import { OtlpDecodeError } from './otlp-error.js'
import type { ProtobufOrigin, ResourceOrigin, ScopeOrigin } from './protobuf-origin.js'
import { MAX_NESTING, NestingError, doubleValue, serviceNameOf, spanProblem } from './span-checks.js'
import { WireReader } from './wire-reader.js'

/*
 * ExportTraceServiceRequest (opentelemetry-proto, collector/trace/v1 and trace/v1) read straight
 * into Span objects. Cases switch on the whole tag (field number << 3 | wire type); a field with an
 * unexpected wire type is skipped like an unknown one, as the reference protobuf runtimes do.
 *
 * One walk serves two readers. Decoding builds every value. Scanning, for a collector that only
 * forwards the sender's bytes (Kafka), walks attribute values and events just as deep, so it
 * accepts and rejects exactly what decoding would, but builds none of them: ids, times and
 * links are all a span's checks need.
 *
 * Attribute values nest by recursion, bounded by MAX_NESTING: a span holding a deeper value is
 * rejected (its remaining bytes skipped), a resource or scope holding one refuses the request.
 * Protobuf strings are decoded from UTF-8, so they are always well-formed UTF-16.
 */

/** Decodes a protobuf ExportTraceServiceRequest; throws OtlpDecodeError when the bytes are not one. */
export function decodeProtobufRequest(body: Buffer, projectId: string): DecodedRequest {
  const out = new DecodedRequest()
  walkRequest(body, projectId, { account: out, kept: out.spans, values: true })
  return out
}

/** The spans of a protobuf export request that pass the checks: their trace ids and where they lie in the body. */
export class ScannedRequest extends RequestAccount {
  readonly traceIds: string[] = []
  readonly origin: ProtobufOrigin

  constructor(
    body: Buffer,
    readonly projectId: string,
  ) {
    super()
    this.origin = { body, spans: [] }
  }
}

/**
 * Checks a protobuf ExportTraceServiceRequest as decodeProtobufRequest does (same errors, same
 * spans rejected) without building attribute values or events.
 */
export function scanProtobufRequest(body: Buffer, projectId: string): ScannedRequest {
  const out = new ScannedRequest(body, projectId)
  const kept: Span[] = []
  walkRequest(body, projectId, { account: out, kept, values: false, origins: out.origin.spans })
  for (const span of kept) out.traceIds.push(span.traceId)
  return out
}

interface Walk {
  account: RequestAccount
  /** Spans that pass the checks; without values they hold ids, times, name, status and links only. */
  kept: Span[]
  values: boolean
  /** Where each kept span lies, when the caller forwards bytes. */
  origins?: ProtobufOrigin['spans']
}

function walkRequest(body: Buffer, projectId: string, walk: Walk): void {
  const r = new WireReader(body)
  const end = body.length
  let resourceIndex = 0
  try {
    while (r.pos < end) {
      const tag = r.uint32(end)
      if (tag === 0x0a) readResourceSpans(r, r.delimitedEnd(end), resourceIndex++, projectId, walk)
      else r.skip(tag & 7, end)
    }
  } catch (err) {
    // A span's own values are caught with the span; this one is a resource's or a scope's, which every span shares.
    if (err instanceof NestingError) throw new OtlpDecodeError('NESTING_TOO_DEEP', `resource or scope attributes: ${err.message}`)
    throw err
  }
}

function readResourceSpans(r: WireReader, end: number, resourceIndex: number, projectId: string, walk: Walk): void {
  const resource: Attributes = {}
  const resourceOrigin: ResourceOrigin = { fields: [] }
  const firstSpan = walk.kept.length
  let scopeIndex = 0
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a: // resource: its attributes (field 1) are what Sieve keeps
        readKeyValueList(r, r.delimitedEnd(end), walk.values ? resource : null, 0)
        resourceOrigin.fields.push(fieldStart, r.pos)
        break
      case 0x12: // scope_spans
        readScopeSpans(r, r.delimitedEnd(end), resource, resourceIndex, scopeIndex++, projectId, walk, resourceOrigin)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  // The resource may follow its spans on the wire; name their service once it is known.
  const serviceName = serviceNameOf(resource)
  for (let i = firstSpan; i < walk.kept.length; i++) walk.kept[i]!.serviceName = serviceName
}

function readScopeSpans(
  r: WireReader,
  end: number,
  resource: Attributes,
  resourceIndex: number,
  scopeIndex: number,
  projectId: string,
  walk: Walk,
  resourceOrigin: ResourceOrigin,
): void {
  // Spans share this object; the scope message may come after them on the wire.
  const scope: Span['scope'] = { name: '', version: '', attributes: {} }
  const scopeOrigin: ScopeOrigin = { fields: [], resource: resourceOrigin }
  let spanIndex = 0
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        readScope(r, r.delimitedEnd(end), scope, walk.values)
        scopeOrigin.fields.push(fieldStart, r.pos)
        break
      case 0x12: {
        const span = readCheckedSpan(r, r.delimitedEnd(end), projectId, resource, scope, walk.values)
        if (typeof span !== 'string') {
          walk.kept.push(span)
          walk.origins?.push({ start: fieldStart, end: r.pos, scope: scopeOrigin })
        } else walk.account.reject(spanPath(resourceIndex, scopeIndex, spanIndex), span)
        spanIndex++
        break
      }
      default:
        r.skip(tag & 7, end)
    }
  }
}

function readScope(r: WireReader, end: number, scope: Span['scope'], values: boolean): void {
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        scope.name = r.string(end)
        break
      case 0x12:
        scope.version = r.string(end)
        break
      case 0x1a:
        readKeyValue(r, r.delimitedEnd(end), values ? scope.attributes : null, 0)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
}

/** A span that passes the checks, or why it does not; a value nested too deep leaves the rest of the span unread. */
function readCheckedSpan(r: WireReader, end: number, projectId: string, resource: Attributes, scope: Span['scope'], values: boolean): Span | string {
  try {
    const span = readSpan(r, end, projectId, resource, scope, values)
    return spanProblem(span) ?? span
  } catch (err) {
    if (!(err instanceof NestingError)) throw err
    r.pos = end
    return err.message
  }
}

function readSpan(r: WireReader, end: number, projectId: string, resource: Attributes, scope: Span['scope'], values: boolean): Span {
  let traceId = ''
  let spanId = ''
  let parentSpanId = ''
  let traceState = ''
  let name = ''
  let kind: SpanKind = 'UNSPECIFIED'
  let start = '0'
  let finish = '0'
  const attributes: Attributes = {}
  let droppedAttributesCount = 0
  const events: SpanEvent[] = []
  let droppedEventsCount = 0
  const links: SpanLink[] = []
  let droppedLinksCount = 0
  let status: Span['status'] = { code: 'UNSET', message: '' }
  let flags = 0
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        traceId = r.hex(end)
        break
      case 0x12:
        spanId = r.hex(end)
        break
      case 0x1a:
        traceState = r.string(end)
        break
      case 0x22:
        parentSpanId = r.hex(end)
        break
      case 0x2a:
        name = r.string(end)
        break
      case 0x30:
        kind = SPAN_KINDS[r.uint32(end)] ?? 'UNSPECIFIED'
        break
      case 0x39:
        start = r.fixed64Decimal(end)
        break
      case 0x41:
        finish = r.fixed64Decimal(end)
        break
      case 0x4a:
        readKeyValue(r, r.delimitedEnd(end), values ? attributes : null, 0)
        break
      case 0x50:
        droppedAttributesCount = r.uint32(end)
        break
      case 0x5a:
        if (values) events.push(readEvent(r, r.delimitedEnd(end)))
        else skipEvent(r, r.delimitedEnd(end))
        break
      case 0x60:
        droppedEventsCount = r.uint32(end)
        break
      case 0x6a:
        links.push(readLink(r, r.delimitedEnd(end), values))
        break
      case 0x70:
        droppedLinksCount = r.uint32(end)
        break
      case 0x7a:
        status = readStatus(r, r.delimitedEnd(end))
        break
      case 0x85: // field 16, fixed32 (tag 133, two bytes on the wire)
        flags = r.fixed32(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return {
    projectId,
    traceId,
    spanId,
    parentSpanId,
    traceState,
    name,
    kind,
    startTimeUnixNano: start,
    endTimeUnixNano: finish,
    status,
    flags,
    serviceName: '',
    scope,
    attributes,
    resource,
    events,
    links,
    droppedAttributesCount,
    droppedEventsCount,
    droppedLinksCount,
  }
}

function readEvent(r: WireReader, end: number): SpanEvent {
  const event: SpanEvent = { timeUnixNano: '0', name: '', attributes: {}, droppedAttributesCount: 0 }
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x09:
        event.timeUnixNano = r.fixed64Decimal(end)
        break
      case 0x12:
        event.name = r.string(end)
        break
      case 0x1a:
        readKeyValue(r, r.delimitedEnd(end), event.attributes, 0)
        break
      case 0x20:
        event.droppedAttributesCount = r.uint32(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return event
}

/** An event's fields checked as readEvent reads them, nothing built. */
function skipEvent(r: WireReader, end: number): void {
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x1a) readKeyValue(r, r.delimitedEnd(end), null, 0)
    else r.skip(tag & 7, end)
  }
}

function readLink(r: WireReader, end: number, values: boolean): SpanLink {
  const link: SpanLink = { traceId: '', spanId: '', traceState: '', attributes: {}, flags: 0, droppedAttributesCount: 0 }
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        link.traceId = r.hex(end)
        break
      case 0x12:
        link.spanId = r.hex(end)
        break
      case 0x1a:
        link.traceState = r.string(end)
        break
      case 0x22:
        readKeyValue(r, r.delimitedEnd(end), values ? link.attributes : null, 0)
        break
      case 0x28:
        link.droppedAttributesCount = r.uint32(end)
        break
      case 0x35:
        link.flags = r.fixed32(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return link
}

function readStatus(r: WireReader, end: number): Span['status'] {
  let code: StatusCode = 'UNSET'
  let message = ''
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x12:
        message = r.string(end)
        break
      case 0x18:
        code = STATUS_CODES[r.uint32(end)] ?? 'UNSET'
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return { code, message }
}

/**
 * A KeyValue into `into`; with `into` null, only checked for well-formedness. `depth`: how many
 * arrays and key-value lists enclose its value.
 */
export function readKeyValue(r: WireReader, end: number, into: Attributes | null, depth: number): void {
  let key = ''
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        if (into) key = r.key(end)
        else r.skip(2, end)
        break
      case 0x12:
        value = readAnyValue(r, r.delimitedEnd(end), into !== null, depth)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  if (into) setAttribute(into, key, value)
}

/**
 * AnyValue: ints stay exact (a string beyond 2^53), bytes become base64, an empty value is null,
 * NaN and the infinities their names. Without `build`, only walked (nested lists and maps too);
 * null comes back.
 */
export function readAnyValue(r: WireReader, end: number, build: boolean, depth: number): AttributeValue {
  if (!build) {
    skipAnyValue(r, end, depth)
    return null
  }
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        value = r.string(end)
        break
      case 0x10:
        value = r.uint32(end) !== 0
        break
      case 0x18:
        value = r.int64(end)
        break
      case 0x21:
        value = doubleValue(r.double(end))
        break
      case 0x2a:
        value = readValueList(r, r.delimitedEnd(end), true, nested(depth))
        break
      case 0x32:
        value = readKeyValueList(r, r.delimitedEnd(end), {}, nested(depth))
        break
      case 0x3a:
        value = r.base64(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return value
}

/** The fields readAnyValue reads, with the same wire types, skipped: scalars by their wire type, lists and maps walked. */
function skipAnyValue(r: WireReader, end: number, depth: number): void {
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x2a) readValueList(r, r.delimitedEnd(end), false, nested(depth))
    else if (tag === 0x32) readKeyValueList(r, r.delimitedEnd(end), null, nested(depth))
    else r.skip(tag & 7, end)
  }
}

/** The depth of the values inside an array or key-value list at `depth`; throws past MAX_NESTING. */
function nested(depth: number): number {
  if (depth >= MAX_NESTING) throw new NestingError()
  return depth + 1
}

function readKeyValueList(r: WireReader, end: number, into: Attributes | null, depth: number): Attributes | null {
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x0a) readKeyValue(r, r.delimitedEnd(end), into, depth)
    else r.skip(tag & 7, end)
  }
  return into
}

function readValueList(r: WireReader, end: number, build: boolean, depth: number): AttributeValue[] | null {
  const values: AttributeValue[] | null = build ? [] : null
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x0a) {
      const value = readAnyValue(r, r.delimitedEnd(end), build, depth)
      values?.push(value)
    } else r.skip(tag & 7, end)
  }
  return values
}
