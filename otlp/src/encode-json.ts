import { SPAN_KINDS, STATUS_CODES, type AttributeValue, type Attributes, type Span } from '@sieve/core'

/**
 * Spans as an OTLP/JSON ExportTraceServiceRequest, the inverse of `decodeJsonRequest`: what a tool
 * that holds Span objects (`sieve simulate` forwarding its runs) sends to a collector. Spans sharing
 * a resource share a `resourceSpans`, and within it spans of one scope a `scopeSpans`. Whole numbers
 * go as `intValue` up to 2^53 and others as `doubleValue`, so a double that happens to be whole and
 * small comes back as an int: the Span model does not tell them apart.
 */
export function encodeJsonRequest(spans: readonly Span[]): { resourceSpans: unknown[] } {
  const resources = new Map<string, { resource: Attributes; scopes: Map<string, { scope: Span['scope']; spans: unknown[] }> }>()
  for (const span of spans) {
    const resourceKey = JSON.stringify(span.resource)
    let resource = resources.get(resourceKey)
    if (!resource) resources.set(resourceKey, (resource = { resource: span.resource, scopes: new Map() }))
    const scopeKey = JSON.stringify(span.scope)
    let scope = resource.scopes.get(scopeKey)
    if (!scope) resource.scopes.set(scopeKey, (scope = { scope: span.scope, spans: [] }))
    scope.spans.push(spanJson(span))
  }
  return {
    resourceSpans: [...resources.values()].map(({ resource, scopes }) => ({
      resource: { attributes: keyValues(resource) },
      scopeSpans: [...scopes.values()].map(({ scope, spans }) => ({
        scope: { name: scope.name, version: scope.version, attributes: keyValues(scope.attributes) },
        spans,
      })),
    })),
  }
}

function spanJson(s: Span): unknown {
  return {
    traceId: s.traceId,
    spanId: s.spanId,
    ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
    ...(s.traceState ? { traceState: s.traceState } : {}),
    name: s.name,
    kind: SPAN_KINDS.indexOf(s.kind),
    startTimeUnixNano: s.startTimeUnixNano,
    endTimeUnixNano: s.endTimeUnixNano,
    attributes: keyValues(s.attributes),
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({
      timeUnixNano: e.timeUnixNano,
      name: e.name,
      attributes: keyValues(e.attributes),
      droppedAttributesCount: e.droppedAttributesCount,
    })),
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.map((l) => ({
      traceId: l.traceId,
      spanId: l.spanId,
      ...(l.traceState ? { traceState: l.traceState } : {}),
      attributes: keyValues(l.attributes),
      droppedAttributesCount: l.droppedAttributesCount,
      ...(l.flags ? { flags: l.flags } : {}),
    })),
    droppedLinksCount: s.droppedLinksCount,
    status: { code: STATUS_CODES.indexOf(s.status.code), ...(s.status.message ? { message: s.status.message } : {}) },
    ...(s.flags ? { flags: s.flags } : {}),
  }
}

const keyValues = (attributes: Attributes) => Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }))

function anyValue(value: AttributeValue): unknown {
  if (value === null) return {}
  if (typeof value === 'string') return { stringValue: value }
  if (typeof value === 'boolean') return { boolValue: value }
  // Past 2^53 a number is a double whatever it looks like; as an int64 it could overflow.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { intValue: String(value) } : { doubleValue: value }
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } }
  return { kvlistValue: { values: keyValues(value) } }
}
