import type { Span } from '@sieve/core'

/**
 * Where each kept span of a protobuf export request lies in the request body, with the resource
 * and scope fields it belongs to. With it, the spans of one trace can be forwarded as a smaller
 * export request made of the sender's own bytes (see protobuf-subset.ts) instead of re-encoding
 * them. Ranges are [start, end) offsets of whole fields, tag and length prefix included.
 */
export interface ProtobufOrigin {
  body: Buffer
  /** One per kept span, in the order of the decoded spans. */
  spans: SpanOrigin[]
}

export interface SpanOrigin {
  start: number
  end: number
  scope: ScopeOrigin
}

export interface ScopeOrigin {
  /** The `scope` field(s) of its ScopeSpans, as flat [start, end, start, end, ...]; filled as the decoder meets them. */
  fields: number[]
  resource: ResourceOrigin
}

export interface ResourceOrigin {
  /** The `resource` field(s) of its ResourceSpans, as flat [start, end, ...]. */
  fields: number[]
}

const ORIGIN = Symbol('sieve.protobufOrigin')

/**
 * The decoded spans array carries its origin along, so it reaches a queue through the one
 * `publish(spans)` seam unchanged; a filtered or copied array carries none, and a mutated one is
 * not trusted (the length no longer matches), so the queue then encodes the Span objects.
 */
export function attachOrigin(spans: Span[], origin: ProtobufOrigin): void {
  Object.defineProperty(spans, ORIGIN, { value: origin, enumerable: false })
}

export function originOf(spans: Span[]): ProtobufOrigin | undefined {
  const origin = (spans as { [ORIGIN]?: ProtobufOrigin })[ORIGIN]
  return origin && origin.spans.length === spans.length ? origin : undefined
}
