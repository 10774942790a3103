import { z } from 'zod'
import { SPAN_KINDS, STATUS_CODES, type AttributeValue, type Span } from '@sieve/core'
import { decodeProtobufRequest, type ScannedRequest } from '../otlp/decode-protobuf.js'
import { OtlpDecodeError } from '../otlp/otlp-error.js'
import { protobufSubset } from '../otlp/protobuf-subset.js'
import { varintSize, writeVarint } from '../otlp/varint.js'
import { WireReader } from '../otlp/wire-reader.js'

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

const attributeValue: z.ZodType<AttributeValue> = z.lazy(() =>
  z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(attributeValue), z.record(z.string(), attributeValue)]),
)
const attributes = z.record(z.string(), attributeValue)
const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `must be ${bytes * 2} lower-case hex digits`)
const nanos = z.string().regex(/^\d{1,20}$/, 'must be Unix nanoseconds as a decimal string')
const count = z.number().int().min(0)

const spanSchema = z.object({
  projectId: z.string().min(1),
  traceId: hex(16),
  spanId: hex(8),
  parentSpanId: z.union([z.literal(''), hex(8)]),
  traceState: z.string(),
  name: z.string(),
  kind: z.enum(SPAN_KINDS),
  startTimeUnixNano: nanos,
  endTimeUnixNano: nanos,
  status: z.object({ code: z.enum(STATUS_CODES), message: z.string() }),
  flags: count,
  serviceName: z.string(),
  scope: z.object({ name: z.string(), version: z.string(), attributes }),
  attributes,
  resource: attributes,
  events: z.array(z.object({ timeUnixNano: nanos, name: z.string(), attributes, droppedAttributesCount: count })),
  links: z.array(
    z.object({ traceId: hex(16), spanId: hex(8), traceState: z.string(), attributes, flags: count, droppedAttributesCount: count }),
  ),
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
export const encodeSpanRecords = (spans: Span[]): SpanRecord[] =>
  spans.map((span) => ({ key: span.traceId, value: encodeSpanRecord(span), spans: 1 }))

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
  throw new SpanRecordError(
    `unknown span record version ${value[0]} (this Sieve reads versions ${JSON_SPAN_RECORD} and ${OTLP_TRACE_RECORD})`,
  )
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
  return result.data
}
