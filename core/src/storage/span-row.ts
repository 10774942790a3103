import { setAttribute } from '../span-values.js'
import { genAiFields } from '../genai.js'
import type { AttributeValue, Attributes, Span, SpanEvent, SpanKind, SpanLink, StatusCode } from '../span.js'

/**
 * The `spans` table row and its conversion to and from the span model. Attribute values are
 * kept as text (strings as they are, other types as JSON) with a side map naming the keys whose
 * value is not a string, so a read gives back exactly the typed value that was written.
 */

/** Column order of the insert; `ingested_at` is left to its DEFAULT. */
export const SPAN_COLUMNS = [
  'project_id',
  'trace_id',
  'span_id',
  'parent_span_id',
  'trace_state',
  'name',
  'kind',
  'start_time',
  'end_time',
  'duration_ns',
  'status_code',
  'status_message',
  'flags',
  'service_name',
  'scope_name',
  'scope_version',
  'attributes',
  'attribute_types',
  'resource_attributes',
  'resource_attribute_types',
  'scope_attributes',
  'scope_attribute_types',
  'events',
  'links',
  'dropped_attributes_count',
  'dropped_events_count',
  'dropped_links_count',
  'gen_ai_operation',
  'gen_ai_system',
  'request_model',
  'response_model',
  'input_tokens',
  'output_tokens',
  'tool_name',
  'agent_name',
  'agent_version',
  'prompt_version',
  'session_id',
  'user_id',
  'environment',
] as const

export type SpanColumn = (typeof SPAN_COLUMNS)[number]
/** One insert row, values in SPAN_COLUMNS order. */
export type SpanRowValues = (string | number | Record<string, string>)[]

type AttributeType = 'int' | 'double' | 'bool' | 'array' | 'kvlist' | 'null'

function attributeType(value: AttributeValue): AttributeType | undefined {
  if (typeof value === 'string') return undefined
  if (value === null) return 'null'
  if (typeof value === 'boolean') return 'bool'
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'double'
  return Array.isArray(value) ? 'array' : 'kvlist'
}

/** Splits typed attributes into the text map and the type map stored beside it. */
export function encodeAttributes(attributes: Attributes): [Record<string, string>, Record<string, string>] {
  const values: Record<string, string> = {}
  const types: Record<string, string> = {}
  for (const key in attributes) {
    const value = attributes[key] as AttributeValue
    const type = attributeType(value)
    // setAttribute: a key named `__proto__` must stay a key of the maps, not become their prototype.
    if (type === undefined) setAttribute(values, key, value)
    else {
      setAttribute(values, key, JSON.stringify(value))
      setAttribute(types, key, type)
    }
  }
  return [values, types]
}

export function decodeAttributes(values: Record<string, string>, types: Record<string, string>): Attributes {
  const out: Attributes = {}
  for (const key in values) {
    const text = values[key] as string
    // Own keys only: `types.constructor` would otherwise be Object's and turn a string into JSON.
    setAttribute(out, key, Object.hasOwn(types, key) ? (JSON.parse(text) as AttributeValue) : text)
  }
  return out
}

/** Unix nanoseconds as the `seconds.fraction` text DateTime64(9) parses without loss. */
export function nanosToDateTime64(nanos: string): string {
  const padded = nanos.padStart(10, '0')
  return `${padded.slice(0, -9)}.${padded.slice(-9)}`
}

/** A row this writer refuses to build: the span holds a value its column cannot take. */
export class SpanRowError extends Error {}

const UINT32_MAX = 0xffffffff

/**
 * A UInt32 column's value. The decoders only pass such values; one that is not is refused here
 * rather than wrapped by ClickHouse (5e9 would be stored as 705032704) or written as `1e+21`.
 */
function uint32(value: number, column: string): number {
  if (Number.isInteger(value) && value >= 0 && value <= UINT32_MAX) return value
  throw new SpanRowError(`${column} must be an integer from 0 to ${UINT32_MAX}`)
}

/**
 * A token count for a UInt64 column. Counts are read from whatever attribute a sender set, so a
 * count no double holds exactly (beyond 2^53, or 1e21 which JSON writes as `1e+21`, text
 * ClickHouse cannot parse) is no count: it is stored as 0, unknown, like a missing one.
 */
const tokenCount = (value: number): number => (Number.isSafeInteger(value) && value >= 0 ? value : 0)

export function spanToRow(span: Span): SpanRowValues {
  const g = genAiFields(span)
  const [attributes, attributeTypes] = encodeAttributes(span.attributes)
  const [resource, resourceTypes] = encodeAttributes(span.resource)
  const [scopeAttributes, scopeTypes] = encodeAttributes(span.scope.attributes)
  return [
    span.projectId,
    span.traceId,
    span.spanId,
    span.parentSpanId,
    span.traceState,
    span.name,
    span.kind,
    nanosToDateTime64(span.startTimeUnixNano),
    nanosToDateTime64(span.endTimeUnixNano),
    (BigInt(span.endTimeUnixNano) - BigInt(span.startTimeUnixNano)).toString(),
    span.status.code,
    span.status.message,
    uint32(span.flags, 'flags'),
    span.serviceName,
    span.scope.name,
    span.scope.version,
    attributes,
    attributeTypes,
    resource,
    resourceTypes,
    scopeAttributes,
    scopeTypes,
    JSON.stringify(span.events),
    JSON.stringify(span.links),
    uint32(span.droppedAttributesCount, 'dropped_attributes_count'),
    uint32(span.droppedEventsCount, 'dropped_events_count'),
    uint32(span.droppedLinksCount, 'dropped_links_count'),
    g.operation,
    g.system,
    g.requestModel,
    g.responseModel,
    tokenCount(g.inputTokens),
    tokenCount(g.outputTokens),
    g.toolName,
    g.agentName,
    g.agentVersion,
    g.promptVersion,
    g.sessionId,
    g.userId,
    g.environment,
  ]
}

/** The SELECT list that reads a span back; times come out as exact nanosecond strings. */
export const SPAN_SELECT = `project_id, trace_id, span_id, parent_span_id, trace_state, name, kind,
  toString(toUnixTimestamp64Nano(start_time)) AS start_ns, toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
  status_code, status_message, flags, service_name, scope_name, scope_version,
  attributes, attribute_types, resource_attributes, resource_attribute_types, scope_attributes, scope_attribute_types,
  events, links, dropped_attributes_count, dropped_events_count, dropped_links_count`

export interface SpanReadRow {
  project_id: string
  trace_id: string
  span_id: string
  parent_span_id: string
  trace_state: string
  name: string
  kind: string
  start_ns: string
  end_ns: string
  status_code: string
  status_message: string
  flags: number
  service_name: string
  scope_name: string
  scope_version: string
  attributes: Record<string, string>
  attribute_types: Record<string, string>
  resource_attributes: Record<string, string>
  resource_attribute_types: Record<string, string>
  scope_attributes: Record<string, string>
  scope_attribute_types: Record<string, string>
  events: string
  links: string
  dropped_attributes_count: number
  dropped_events_count: number
  dropped_links_count: number
}

export function rowToSpan(row: SpanReadRow): Span {
  return {
    projectId: row.project_id,
    traceId: row.trace_id,
    spanId: row.span_id,
    parentSpanId: row.parent_span_id,
    traceState: row.trace_state,
    name: row.name,
    kind: row.kind as SpanKind,
    startTimeUnixNano: row.start_ns,
    endTimeUnixNano: row.end_ns,
    status: { code: row.status_code as StatusCode, message: row.status_message },
    flags: Number(row.flags),
    serviceName: row.service_name,
    scope: {
      name: row.scope_name,
      version: row.scope_version,
      attributes: decodeAttributes(row.scope_attributes, row.scope_attribute_types),
    },
    attributes: decodeAttributes(row.attributes, row.attribute_types),
    resource: decodeAttributes(row.resource_attributes, row.resource_attribute_types),
    events: JSON.parse(row.events) as SpanEvent[],
    links: JSON.parse(row.links) as SpanLink[],
    droppedAttributesCount: Number(row.dropped_attributes_count),
    droppedEventsCount: Number(row.dropped_events_count),
    droppedLinksCount: Number(row.dropped_links_count),
  }
}
