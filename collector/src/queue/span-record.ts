import { z } from 'zod'
import { SPAN_KINDS, STATUS_CODES, type AttributeValue, type Span } from '@sieve/core'

/**
 * How a span travels as a Kafka record value: one version byte, then the span as UTF-8 JSON.
 * JSON keeps the record readable with any Kafka tool and costs little once the batch is
 * compressed; the version byte lets a later encoding coexist with records already on the topic.
 * The key is the trace id, so every span of a trace lands on one partition.
 */
export const SPAN_RECORD_VERSION = 1

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

export function encodeSpanRecord(span: Span): Buffer {
  const json = JSON.stringify(span)
  const buf = Buffer.allocUnsafe(1 + Buffer.byteLength(json))
  buf[0] = SPAN_RECORD_VERSION
  buf.write(json, 1)
  return buf
}

/** A record that is not a span Sieve can read; it goes to the dead-letter topic. */
export class SpanRecordError extends Error {
  readonly code = 'SPAN_RECORD_INVALID'
}

export function decodeSpanRecord(value: Buffer | null): Span {
  if (!value || value.length === 0) throw new SpanRecordError('empty record')
  if (value[0] !== SPAN_RECORD_VERSION) {
    throw new SpanRecordError(`unknown span record version ${value[0]} (this Sieve reads version ${SPAN_RECORD_VERSION})`)
  }
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
