import { setAttribute, wellFormed, type AttributeValue, type Attributes, type SpanLogEvent } from '@sieve/core'
import { RequestAccount } from './decoded-request.js'
import { attributesOf, describe, FieldError, hexId, nanos, anyValueOf } from './decode-json.js'
import { readAnyValue, readKeyValue } from './decode-protobuf.js'
import type { OtlpFormat } from './encode-response.js'
import { OtlpDecodeError } from './otlp-error.js'
import { logRecordSchema, logsRequestSchema } from './otlp-json-schema.js'
import { parseExactJson } from './parse-exact-json.js'
import { decimalLess, EARLIEST_NANOS, LATEST_NANOS, NestingError } from './span-checks.js'
import { WireReader } from './wire-reader.js'

/*
 * ExportLogsServiceRequest (opentelemetry-proto, collector/logs/v1 and logs/v1), protobuf or JSON,
 * read for the one kind of log record Sieve keeps: a GenAI event that an instrumentation emitted
 * through the Logs API instead of on its span (the per-message `gen_ai.user.message` /
 * `gen_ai.choice` events of the older conventions, `gen_ai.client.inference.operation.details`
 * of the current ones). Each becomes an event of the span its record names, so the conversation
 * reader finds it where it finds span events. Other log records are rejected and counted.
 */

/** What one logs export request turned into: the events kept and an account of the records rejected. */
export class DecodedLogs extends RequestAccount {
  readonly events: SpanLogEvent[] = []

  constructor() {
    super('log record')
  }
}

/** The fields of a LogRecord Sieve reads, as both decoders find them. */
interface RawRecord {
  time: string
  observedTime: string
  eventName: string
  traceId: string
  spanId: string
  attributes: Attributes
  body: AttributeValue | undefined
  droppedAttributesCount: number
}

const MAX_EVENT_NAME = 256

const recordPath = (resource: number, scope: number, record: number): string => `resourceLogs[${resource}].scopeLogs[${scope}].logRecords[${record}]`

/** Decodes an ExportLogsServiceRequest; throws OtlpDecodeError when the body is not one. */
export function decodeLogsRequest(format: OtlpFormat, body: Buffer): DecodedLogs {
  const out = new DecodedLogs()
  const keep = (where: string, record: RawRecord | string) => {
    const kept = typeof record === 'string' ? record : toLogEvent(record, out.events.length)
    if (typeof kept === 'string') out.reject(where, kept)
    else out.events.push(kept)
  }
  if (format === 'json') walkJson(body, keep)
  else walkProtobuf(body, keep)
  return out
}

/** The span event a record stands for, or why Sieve does not keep it. */
function toLogEvent(record: RawRecord, seq: number): SpanLogEvent | string {
  const name = record.eventName || (typeof record.attributes['event.name'] === 'string' ? record.attributes['event.name'] : '')
  if (!name.startsWith('gen_ai.')) {
    return `${name ? `event '${name.slice(0, 100)}'` : 'a log record without an event name'} is not a GenAI event; Sieve keeps the GenAI events of traced calls only`
  }
  // The conventions' names are short; the column keeps a dictionary of them.
  if (name.length > MAX_EVENT_NAME) return `event name '${name.slice(0, 100)}...' is longer than ${MAX_EVENT_NAME} characters`
  if (record.traceId.length !== 32 || record.spanId.length !== 16 || /^0+$/.test(record.traceId) || /^0+$/.test(record.spanId)) {
    return `GenAI event '${name}' names no span (a 16-byte trace id and an 8-byte span id): Sieve keeps an event with its span`
  }
  const time = record.time !== '0' ? record.time : record.observedTime
  if (time === '0') return `GenAI event '${name}' has no time`
  if (decimalLess(time, EARLIEST_NANOS) || !decimalLess(time, LATEST_NANOS)) return `GenAI event '${name}' at ${time} ns is outside the times Sieve stores`
  const attributes: Attributes = {}
  for (const key in record.attributes) if (key !== 'event.name') setAttribute(attributes, key, record.attributes[key] as AttributeValue)
  if (record.body !== undefined && record.body !== null) setAttribute(attributes, 'event.body', record.body)
  return {
    traceId: record.traceId,
    spanId: record.spanId,
    seq,
    // The record's attributes without `event.name`; its body, when it has one, as `event.body`.
    event: { timeUnixNano: time, name, attributes, droppedAttributesCount: record.droppedAttributesCount },
  }
}

function walkProtobuf(body: Buffer, keep: (where: string, record: RawRecord | string) => void): void {
  const r = new WireReader(body)
  // resource_logs (1) → scope_logs (2) → log_records (2); the resource and scope are not kept (an event joins a span that has its own).
  eachField(r, body.length, 0x0a, (resourceEnd, ri) =>
    eachField(r, resourceEnd, 0x12, (scopeEnd, si) =>
      eachField(r, scopeEnd, 0x12, (end, i) => {
        const where = recordPath(ri, si, i)
        try {
          keep(where, readRecord(r, end))
        } catch (err) {
          if (!(err instanceof NestingError)) throw err
          r.pos = end
          keep(where, err.message)
        }
      }),
    ),
  )
}

/** Calls `read` with the end and the index of each length-delimited field `tag` up to `end`, skipping other fields. */
function eachField(r: WireReader, end: number, tag: number, read: (fieldEnd: number, index: number) => void): void {
  let index = 0
  while (r.pos < end) {
    const field = r.uint32(end)
    if (field === tag) read(r.delimitedEnd(end), index++)
    else r.skip(field & 7, end)
  }
}

function readRecord(r: WireReader, end: number): RawRecord {
  const record: RawRecord = { time: '0', observedTime: '0', eventName: '', traceId: '', spanId: '', attributes: {}, body: undefined, droppedAttributesCount: 0 }
  while (r.pos < end) {
    const tag = r.uint32(end)
    switch (tag) {
      case 0x09: // time_unix_nano, fixed64
        record.time = r.fixed64Decimal(end)
        break
      case 0x59: // observed_time_unix_nano (11), fixed64
        record.observedTime = r.fixed64Decimal(end)
        break
      case 0x2a: // body (5), AnyValue
        record.body = readAnyValue(r, r.delimitedEnd(end), true, 0)
        break
      case 0x32: // attributes (6)
        readKeyValue(r, r.delimitedEnd(end), record.attributes, 0)
        break
      case 0x38: // dropped_attributes_count (7)
        record.droppedAttributesCount = r.uint32(end)
        break
      case 0x4a: // trace_id (9)
        record.traceId = r.hex(end)
        break
      case 0x52: // span_id (10)
        record.spanId = r.hex(end)
        break
      case 0x62: // event_name (12)
        record.eventName = r.string(end)
        break
      default:
        r.skip(tag & 7, end)
    }
  }
  return record
}

function walkJson(body: Buffer, keep: (where: string, record: RawRecord | string) => void): void {
  const parsed = logsRequestSchema.safeParse(parseExactJson(body.toString('utf8')))
  if (!parsed.success) throw new OtlpDecodeError('JSON_SHAPE', `not an OTLP ExportLogsServiceRequest: ${describe(parsed.error)}`)
  ;(parsed.data.resourceLogs ?? []).forEach((rl, ri) =>
    (rl.scopeLogs ?? []).forEach((sl, si) =>
      (sl.logRecords ?? []).forEach((raw, i) => {
        const where = recordPath(ri, si, i)
        const json = logRecordSchema.safeParse(raw)
        if (!json.success) return keep(where, describe(json.error))
        try {
          const l = json.data
          keep(where, {
            time: nanos(l.timeUnixNano),
            observedTime: nanos(l.observedTimeUnixNano),
            eventName: wellFormed(l.eventName ?? ''),
            traceId: hexId(l.traceId, 'trace id'),
            spanId: hexId(l.spanId, 'span id'),
            attributes: attributesOf(l.attributes),
            body: l.body === undefined ? undefined : anyValueOf(l.body, 0),
            droppedAttributesCount: l.droppedAttributesCount ?? 0,
          })
        } catch (err) {
          if (err instanceof FieldError) return keep(where, err.message)
          throw err
        }
      }),
    ),
  )
}
