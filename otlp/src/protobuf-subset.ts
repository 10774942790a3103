import type { ProtobufOrigin, ResourceOrigin, ScopeOrigin } from './protobuf-origin.js'
import { varintSize, writeVarint } from './varint.js'

/*
 * Some spans of a decoded protobuf export request, as an export request of their own, assembled
 * from the sender's bytes: each span under its resource and scope fields, nothing re-encoded.
 * Decoding the result gives the same Span objects as decoding the original request did.
 *
 *   ExportTraceServiceRequest { resource_spans (1): ResourceSpans {
 *     resource (1) fields as sent, scope_spans (2): ScopeSpans { scope (1) fields as sent, spans (2) as sent } } }
 */

const rangesSize = (ranges: number[]): number => {
  let size = 0
  for (let i = 0; i < ranges.length; i += 2) size += ranges[i + 1]! - ranges[i]!
  return size
}

interface ScopeGroup {
  scope: ScopeOrigin
  spans: number[]
  size: number
}
interface ResourceGroup {
  resource: ResourceOrigin
  scopes: ScopeGroup[]
  size: number
}

/**
 * The export request holding the spans at `indices` (positions in `origin.spans`), after
 * `headerBytes` bytes left for the caller to fill.
 */
export function protobufSubset(origin: ProtobufOrigin, indices: number[], headerBytes = 0): Buffer {
  const { resources, size } = group(origin, indices)
  const { body } = origin
  const out = Buffer.allocUnsafe(headerBytes + size)
  let pos = headerBytes
  const copy = (ranges: number[]) => {
    for (let i = 0; i < ranges.length; i += 2) pos += body.copy(out, pos, ranges[i]!, ranges[i + 1]!)
  }
  for (const r of resources) {
    out[pos++] = 0x0a
    pos = writeVarint(out, pos, r.size)
    copy(r.resource.fields)
    for (const s of r.scopes) {
      out[pos++] = 0x12
      pos = writeVarint(out, pos, s.size)
      copy(s.scope.fields)
      for (const i of s.spans) {
        const span = origin.spans[i]!
        pos += body.copy(out, pos, span.start, span.end)
      }
    }
  }
  return out
}

// A request rarely has more than a few resources and scopes; linear look-ups beat maps here.
function group(origin: ProtobufOrigin, indices: number[]): { resources: ResourceGroup[]; size: number } {
  const resources: ResourceGroup[] = []
  for (const i of indices) {
    const span = origin.spans[i]!
    let r = resources.find((g) => g.resource === span.scope.resource)
    if (!r) resources.push((r = { resource: span.scope.resource, scopes: [], size: 0 }))
    let s = r.scopes.find((g) => g.scope === span.scope)
    if (!s) r.scopes.push((s = { scope: span.scope, spans: [], size: rangesSize(span.scope.fields) }))
    s.spans.push(i)
    s.size += span.end - span.start
  }
  let size = 0
  for (const r of resources) {
    r.size = rangesSize(r.resource.fields)
    for (const s of r.scopes) r.size += 1 + varintSize(s.size) + s.size
    size += 1 + varintSize(r.size) + r.size
  }
  return { resources, size }
}
