import { z } from 'zod'
import { SPAN_KINDS, STATUS_CODES, setAttribute, wellFormed, type AttributeValue, type Attributes, type Span } from '@sieve/core'
import {
  decodeProtobufRequest,
  type ScannedRequest,
  OtlpDecodeError,
  protobufSubset,
  MAX_NESTING,
  NestingError,
  spanProblem,
  varintSize,
  writeVarint,
  WireReader,
} from '@sieve/otlp'

/*
 * How spans travel as Kafka record values. The first byte is the version, so encodings coexist
 * on a topic; every reader takes both. The key is always the trace id, so every span of a trace
 * lands on one partition.
 *
 * Version 1, one span as UTF-8 JSON (the Span model): spans from OTLP/JSON requests, single
 * spans moved to the dead-letter topic, and everything an older collector wrote.
 *
 * Version 2, the spans of one trace from one OTLP protobuf request: a varint length and the
 * project id (UTF-8), then an OTLP ExportTraceServiceRequest holding just those spans, made of
 * the sender's own bytes (see otlp/protobuf-subset.ts). Any OTLP tool reads it after the header;
 * it spares the collector encoding each span again and Kafka a record per span.
 */
export const JSON_SPAN_RECORD = 1
export const OTLP_TRACE_RECORD = 2

/**
 * A version 2 record holds at most this many bytes of spans; a bigger trace in one request takes
 * several records (same key). It keeps any record well inside one produce request and the
 * broker's 1 MiB max.message.bytes, however incompressible; a single span bigger than this
 * still travels alone.
 */
export const MAX_TRACE_RECORD_BYTES = 256 * 1024

/** Why a record's attribute value is not one the decoders could have made. */
class AttributeError extends Error {}

/**
 * An attribute value of a version 1 record, rebuilt as the OTLP decoders build one: own keys
 * (`__proto__` included; JSON.parse makes it an own key, but a record copied by assignment
 * would turn it into a prototype), well-formed text, nesting bounded by MAX_NESTING (by
 * recursion: a depth-limited walk cannot overflow the stack, a recursive schema could).
 * `depth`: how many arrays and maps enclose the value.
 */
function attributeValue(value: unknown, depth: number): AttributeValue {
  if (typeof value === 'string') return wellFormed(value)
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value
  if (typeof value !== 'object') throw new AttributeError(`unexpected ${typeof value} in an attribute value`)
  if (depth >= MAX_NESTING) throw new AttributeError(new NestingError().message)
  return Array.isArray(value) ? value.map((item) => attributeValue(item, depth + 1)) : attributeMap(value, depth + 1)
}

function attributeMap(value: object, depth: number): Attributes {
  const out: Attributes = {}
  for (const key of Object.keys(value)) setAttribute(out, wellFormed(key), attributeValue((value as Record<string, unknown>)[key], depth))
  return out
}

const attributes = z.unknown().transform((value, ctx): Attributes => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'expected an object of attribute values' })
    return z.NEVER
  }
  try {
    return attributeMap(value, 0)
  } catch (err) {
    if (!(err instanceof AttributeError)) throw err
    ctx.addIssue({ code: 'custom', message: err.message })
    return z.NEVER
  }
})
const text = z.string().transform(wellFormed)
const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `must be ${bytes * 2} lower-case hex digits`)
const nanos = z.string().regex(/^(0|[1-9]\d{0,19})$/, 'must be Unix nanoseconds as a decimal string')
/** fixed32 and uint32 fields, as OTLP defines them: a larger value is refused, never wrapped by the UInt32 column. */
const count = z.number().int().min(0).max(0xffffffff)

/** A version 1 record: the Span model as JSON, held to what the OTLP decoders accept (span-checks.ts too). */
const spanSchema = z.object({
  projectId: z.string().min(1),
  traceId: hex(16),
  spanId: hex(8),
  parentSpanId: z.union([z.literal(''), hex(8)]),
  traceState: text,
  name: text,
  kind: z.enum(SPAN_KINDS),
  startTimeUnixNano: nanos,
  endTimeUnixNano: nanos,
  status: z.object({ code: z.enum(STATUS_CODES), message: text }),
  flags: count,
  serviceName: text,
  scope: z.object({ name: text, version: text, attributes }),
  attributes,
  resource: attributes,
  events: z.array(z.object({ timeUnixNano: nanos, name: text, attributes, droppedAttributesCount: count })),
  links: z.array(z.object({ traceId: hex(16), spanId: hex(8), traceState: text, attributes, flags: count, droppedAttributesCount: count })),
  droppedAttributesCount: count,
  droppedEventsCount: count,
  droppedLinksCount: count,
}) satisfies z.ZodType<Span>

/** One span as a version 1 record. */
export function encodeSpanRecord(span: Span): Buffer {
  const json = JSON.stringify(span)
  const buf = Buffer.allocUnsafe(1 + Buffer.byteLength(json))
  buf[0] = JSON_SPAN_RECORD
  buf.write(json, 1)
  return buf
}

export interface SpanRecord {
  key: string
  value: Buffer
  /** How many spans the record holds. */
  spans: number
}

/** Spans as version 1 records, one each: what an OTLP/JSON request becomes. */
export const encodeSpanRecords = (spans: Span[]): SpanRecord[] => spans.map((span) => ({ key: span.traceId, value: encodeSpanRecord(span), spans: 1 }))

/**
 * The kept spans of a scanned OTLP protobuf request as version 2 records: one per trace, split
 * where a trace outgrows MAX_TRACE_RECORD_BYTES.
 */
export function encodeTraceRecords(request: ScannedRequest): SpanRecord[] {
  const { origin, traceIds } = request
  // A trace's spans, split where they outgrow MAX_TRACE_RECORD_BYTES; the last part is still filling.
  const traces = new Map<string, { parts: number[][]; bytes: number }>()
  for (let i = 0; i < traceIds.length; i++) {
    const traceId = traceIds[i]!
    const size = origin.spans[i]!.end - origin.spans[i]!.start
    let trace = traces.get(traceId)
    if (!trace) traces.set(traceId, (trace = { parts: [[]], bytes: 0 }))
    if (trace.bytes + size > MAX_TRACE_RECORD_BYTES && trace.bytes > 0) {
      trace.parts.push([])
      trace.bytes = 0
    }
    trace.parts.at(-1)!.push(i)
    trace.bytes += size
  }
  const project = Buffer.from(request.projectId)
  const header = 1 + varintSize(project.length) + project.length
  const records: SpanRecord[] = []
  for (const [traceId, { parts }] of traces) {
    for (const indices of parts) {
      const value = protobufSubset(origin, indices, header)
      value[0] = OTLP_TRACE_RECORD
      project.copy(value, writeVarint(value, 1, project.length))
      records.push({ key: traceId, value, spans: indices.length })
    }
  }
  return records
}

/** A record that is not a span Sieve can read; it goes to the dead-letter topic. */
export class SpanRecordError extends Error {
  readonly code = 'SPAN_RECORD_INVALID'
}

/** The spans of a record of either version; throws SpanRecordError naming what is wrong. */
export function decodeSpanRecords(value: Buffer | null): Span[] {
  if (!value || value.length === 0) throw new SpanRecordError('empty record')
  if (value[0] === JSON_SPAN_RECORD) return [decodeJsonSpan(value)]
  if (value[0] === OTLP_TRACE_RECORD) return decodeOtlpTrace(value)
  throw new SpanRecordError(`unknown span record version ${value[0]} (this Sieve reads versions ${JSON_SPAN_RECORD} and ${OTLP_TRACE_RECORD})`)
}

function decodeOtlpTrace(value: Buffer): Span[] {
  try {
    const r = new WireReader(value)
    r.pos = 1
    const project = r.string(value.length)
    if (project === '') throw new SpanRecordError('span record names no project')
    const decoded = decodeProtobufRequest(value.subarray(r.pos), project)
    if (decoded.rejected > 0) throw new SpanRecordError(`span record: ${decoded.errorMessage}`)
    if (decoded.spans.length === 0) throw new SpanRecordError('span record holds no spans')
    return decoded.spans
  } catch (err) {
    if (err instanceof OtlpDecodeError) throw new SpanRecordError(`span record: ${err.message}`)
    throw err
  }
}

function decodeJsonSpan(value: Buffer): Span {
  let parsed: unknown
  try {
    parsed = JSON.parse(value.toString('utf8', 1))
  } catch (err) {
    throw new SpanRecordError(`span record is not valid JSON: ${(err as Error).message}`)
  }
  const result = spanSchema.safeParse(parsed)
  if (!result.success) {
    const issue = result.error.issues[0]
    throw new SpanRecordError(`span record: ${issue?.path.join('.') || 'value'}: ${issue?.message}`)
  }
  const problem = spanProblem(result.data)
  if (problem !== undefined) throw new SpanRecordError(`span record: ${problem}`)
  return result.data
}
