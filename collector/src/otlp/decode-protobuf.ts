import {
  SPAN_KINDS,
  STATUS_CODES,
  type AttributeValue,
  type Attributes,
  type Span,
  type SpanEvent,
  type SpanKind,
  type SpanLink,
  type StatusCode,
} from '@sieve/core'
import { DecodedRequest, spanPath } from './decoded-request.js'
import { attachOrigin, type ProtobufOrigin, type ResourceOrigin } from './protobuf-origin.js'
import { serviceNameOf, spanProblem } from './span-checks.js'
import { WireReader } from './wire-reader.js'

/*
 * ExportTraceServiceRequest (opentelemetry-proto, collector/trace/v1 and trace/v1) read straight
 * into Span objects. Cases switch on the whole tag (field number << 3 | wire type); a field with an
 * unexpected wire type is skipped like an unknown one, as the reference protobuf runtimes do.
 */

/**
 * Decodes a protobuf ExportTraceServiceRequest; throws OtlpDecodeError when the bytes are not one.
 * The spans array carries where each span lies in `body` (see protobuf-origin.ts).
 */
export function decodeProtobufRequest(body: Buffer, projectId: string): DecodedRequest {
  const out = new DecodedRequest()
  const origin: ProtobufOrigin = { body, spans: [] }
  const r = new WireReader(body)
  const end = body.length
  let resourceIndex = 0
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x0a) readResourceSpans(r, r.delimitedEnd(end), resourceIndex++, projectId, out, origin)
    else r.skip(tag & 7, end)
  }
  attachOrigin(out.spans, origin)
  return out
}

function readResourceSpans(r: WireReader, end: number, resourceIndex: number, projectId: string, out: DecodedRequest, origin: ProtobufOrigin): void {
  const resource: Attributes = {}
  const resourceOrigin: ResourceOrigin = { fields: [] }
  const firstSpan = out.spans.length
  let scopeIndex = 0
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a: // resource
        readResource(r, r.delimitedEnd(end), resource)
        resourceOrigin.fields.push(fieldStart, r.pos)
        break
      case 0x12: // scope_spans
        readScopeSpans(r, r.delimitedEnd(end), resource, resourceIndex, scopeIndex++, projectId, out, origin, resourceOrigin)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  // The resource may follow its spans on the wire; name their service once it is known.
  const serviceName = serviceNameOf(resource)
  for (let i = firstSpan; i < out.spans.length; i++) out.spans[i]!.serviceName = serviceName
}

function readResource(r: WireReader, end: number, into: Attributes): void {
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x0a) readKeyValue(r, r.delimitedEnd(end), into)
    else r.skip(tag & 7, end)
  }
}

function readScopeSpans(
  r: WireReader,
  end: number,
  resource: Attributes,
  resourceIndex: number,
  scopeIndex: number,
  projectId: string,
  out: DecodedRequest,
  origin: ProtobufOrigin,
  resourceOrigin: ResourceOrigin,
): void {
  // Spans share this object; the scope message may come after them on the wire.
  const scope: Span['scope'] = { name: '', version: '', attributes: {} }
  const scopeOrigin = { fields: [] as number[], resource: resourceOrigin }
  let spanIndex = 0
  while (r.pos < end) {
    const fieldStart = r.pos
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        readScope(r, r.delimitedEnd(end), scope)
        scopeOrigin.fields.push(fieldStart, r.pos)
        break
      case 0x12: {
        const span = readSpan(r, r.delimitedEnd(end), projectId, resource, scope)
        const problem = spanProblem(span)
        if (problem === undefined) {
          out.spans.push(span)
          origin.spans.push({ start: fieldStart, end: r.pos, scope: scopeOrigin })
        } else out.reject(spanPath(resourceIndex, scopeIndex, spanIndex), problem)
        spanIndex++
        break
      }
      default:
        r.skip(tag & 7, end)
    }
  }
}

function readScope(r: WireReader, end: number, scope: Span['scope']): void {
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
        readKeyValue(r, r.delimitedEnd(end), scope.attributes)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
}

function readSpan(r: WireReader, end: number, projectId: string, resource: Attributes, scope: Span['scope']): Span {
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
        readKeyValue(r, r.delimitedEnd(end), attributes)
        break
      case 0x50:
        droppedAttributesCount = r.uint32(end)
        break
      case 0x5a:
        events.push(readEvent(r, r.delimitedEnd(end)))
        break
      case 0x60:
        droppedEventsCount = r.uint32(end)
        break
      case 0x6a:
        links.push(readLink(r, r.delimitedEnd(end)))
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
        readKeyValue(r, r.delimitedEnd(end), event.attributes)
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

function readLink(r: WireReader, end: number): SpanLink {
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
        readKeyValue(r, r.delimitedEnd(end), link.attributes)
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

function readKeyValue(r: WireReader, end: number, into: Attributes): void {
  let key = ''
  let value: AttributeValue = null
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x0a:
        key = r.key(end)
        break
      case 0x12:
        value = readAnyValue(r, r.delimitedEnd(end))
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  into[key] = value
}

/** AnyValue: ints stay exact (a string beyond 2^53), bytes become base64, an empty value is null. */
function readAnyValue(r: WireReader, end: number): AttributeValue {
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
        value = r.double(end)
        break
      case 0x2a:
        value = readValueList(r, r.delimitedEnd(end))
        break
      case 0x32: {
        const kvEnd = r.delimitedEnd(end)
        const kv: Attributes = {}
        while (r.pos < kvEnd) {
          const inner = r.uint32(kvEnd)
          if (inner === 0x0a) readKeyValue(r, r.delimitedEnd(kvEnd), kv)
          else r.skip(inner & 7, kvEnd)
        }
        value = kv
        break
      }
      case 0x3a:
        value = r.base64(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return value
}

function readValueList(r: WireReader, end: number): AttributeValue[] {
  const values: AttributeValue[] = []
  while (r.pos < end) {
    const tag = r.uint32(end)
    if (tag === 0x0a) values.push(readAnyValue(r, r.delimitedEnd(end)))
    else r.skip(tag & 7, end)
  }
  return values
}
