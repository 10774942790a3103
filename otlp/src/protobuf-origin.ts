/**
 * Where each kept span of a protobuf export request lies in the request body, with the resource
 * and scope fields it belongs to. With it, the spans of one trace can be forwarded as a smaller
 * export request made of the sender's own bytes (see protobuf-subset.ts) instead of re-encoding
 * them. Ranges are [start, end) offsets of whole fields, tag and length prefix included.
 */
export interface ProtobufOrigin {
  body: Buffer
  /** One per kept span, in the order of the request. */
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
