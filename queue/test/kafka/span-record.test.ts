import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { decodeJsonRequest, decodeProtobufRequest, scanProtobufRequest } from '@sieve/otlp'
import {
  decodeSpanRecords,
  encodeSpanRecord,
  encodeSpanRecords,
  encodeTraceRecords,
  JSON_SPAN_RECORD,
  MAX_TRACE_RECORD_BYTES,
  OTLP_TRACE_RECORD,
  SpanRecordError,
  type SpanRecord,
} from '@sieve/queue'
import type { Span } from '@sieve/core'
import { otelSpans, field, protobufRequest, resourceMessage, scopeMessage, spanMessage, exampleOtlpTrace } from '@sieve/testkit/otlp'
import { hexId, makeSpan, makeTraces } from '@sieve/testkit'

const traceIds = (spans: Span[]) => [...new Set(spans.map((s) => s.traceId))]
const decodeAll = (records: SpanRecord[]) => records.flatMap((r) => decodeSpanRecords(r.value))

test('a span survives version 1 encoding and decoding unchanged, attribute types included', () => {
  const span = makeSpan({ attributes: { s: 'x', n: 1.5, b: false, nil: null, arr: [1, 'two', [true]], kv: { nested: { deep: 3 } } } })
  const record = encodeSpanRecord(span)
  assert.equal(record[0], JSON_SPAN_RECORD)
  assert.deepEqual(decodeSpanRecords(record), [span])
})

/**
 * A trace from the OpenTelemetry SDK (every field OTLP carries) and two more written by hand, in
 * one request: two protobuf messages back to back are one message with both's repeated fields.
 */
const sdkRequest = async () => Buffer.concat([Buffer.from(ProtobufTraceSerializer.serializeRequest(await otelSpans())!), protobufRequest(makeTraces(2, 3))])

const traceRecords = (body: Buffer, project: string) => encodeTraceRecords(scanProtobufRequest(body, project))

test('protobuf spans become one version 2 record per trace, keyed by trace id, decoding to exactly what the receiver decoded', async () => {
  const body = await sdkRequest()
  const spans = decodeProtobufRequest(body, 'acme').spans
  assert.equal(traceIds(spans).length, 3)
  const records = traceRecords(body, 'acme')
  assert.deepEqual(
    records.map((r) => r.key),
    traceIds(spans),
  )
  for (const record of records) {
    assert.equal(record.value[0], OTLP_TRACE_RECORD)
    const decoded = decodeSpanRecords(record.value)
    assert.equal(decoded.length, record.spans)
    assert.deepEqual(
      decoded,
      spans.filter((s) => s.traceId === record.key),
    )
  }
})

test('a version 2 record keeps each span under its own resource and scope, wherever they were on the wire', () => {
  const [a, b] = [hexId(16), hexId(16)]
  const span = (traceId: string, name: string) => makeSpan({ traceId, name, events: [], attributes: { 'gen_ai.request.model': name, n: 3, on: true } })
  const [a1, b1, a2, a3] = [span(a, 'a1'), span(b, 'b1'), span(a, 'a2'), span(a, 'a3')]
  const scopeSpans = (scope: Span['scope'], ...spans: Span[]) =>
    field(2, Buffer.concat([field(1, scopeMessage(scope)), ...spans.map((s) => field(2, spanMessage(s)))]))
  const invalid = makeSpan({ traceId: a, spanId: '0'.repeat(16), events: [], attributes: {} })
  const body = Buffer.concat([
    // The resource comes after its spans here, as the protobuf spec allows.
    field(
      1,
      Buffer.concat([scopeSpans({ name: 'one', version: '1', attributes: {} }, a1, b1, invalid), field(1, resourceMessage({ 'service.name': 'first' }))]),
    ),
    field(
      1,
      Buffer.concat([
        field(1, resourceMessage({ 'service.name': 'second' })),
        scopeSpans({ name: 'two', version: '2', attributes: {} }, a2),
        scopeSpans({ name: 'three', version: '3', attributes: {} }, a3),
      ]),
    ),
  ])
  const decoded = decodeProtobufRequest(body, 'acme')
  assert.equal(decoded.rejected, 1, 'the span with a zero id is rejected by the receiver')
  const records = traceRecords(body, 'acme')
  assert.deepEqual(
    records.map((r) => [r.key, r.spans]),
    [
      [a, 3],
      [b, 1],
    ],
  )
  const [traceA, traceB] = records.map((r) => decodeSpanRecords(r.value))
  assert.deepEqual(
    traceA,
    decoded.spans.filter((s) => s.traceId === a),
  )
  assert.deepEqual(
    traceB,
    decoded.spans.filter((s) => s.traceId === b),
  )
  assert.deepEqual(
    traceA!.map((s) => [s.name, s.serviceName, s.scope.name, s.projectId]),
    [
      ['a1', 'first', 'one', 'acme'],
      ['a2', 'second', 'two', 'acme'],
      ['a3', 'second', 'three', 'acme'],
    ],
  )
})

test('a trace bigger than one record in a request is split over several records, same key, every span once and in order', () => {
  const [root] = makeTraces(1, 1)
  const big = Array.from({ length: 40 }, (_, i) =>
    makeSpan({ traceId: root!.traceId, name: `s${i}`, events: [], attributes: { 'gen_ai.prompt': randomBytes(12_000).toString('hex') } }),
  )
  const spans = decodeProtobufRequest(protobufRequest(big), 'acme').spans
  const records = traceRecords(protobufRequest(big), 'acme')
  assert.ok(records.length >= 4, `${records.length} records`)
  for (const r of records) {
    assert.equal(r.key, root!.traceId)
    assert.ok(r.value.length <= MAX_TRACE_RECORD_BYTES + 1024, `${r.value.length} bytes`)
  }
  assert.deepEqual(decodeAll(records), spans)
})

test('spans handed over as objects (from OTLP/JSON, or decoded protobuf) become version 1 records, one per span', async () => {
  const decoded = decodeProtobufRequest(await sdkRequest(), 'acme').spans
  const json = decodeJsonRequest(exampleOtlpTrace(), 'acme').spans
  // Five spans over three resources; the chat span holds every AnyValue kind, an event and a link.
  assert.equal(json.length, 5)
  const chat = json.find((s) => s.name === 'chat gpt-4o')!
  assert.deepEqual(
    [chat.attributes['gen_ai.request.seed'], chat.attributes['example.mixed'], chat.attributes['example.placeholder'], chat.links[0]!.flags],
    ['9007199254740993', ['a', -3, 1.5, true, null, []], null, 769],
  )
  for (const spans of [decoded, json]) {
    const records = encodeSpanRecords(spans)
    assert.equal(records.length, spans.length)
    assert.ok(records.every((r) => r.value[0] === JSON_SPAN_RECORD && r.spans === 1))
    assert.deepEqual(decodeAll(records), spans)
  }
})

test('a record of another version, not JSON, not protobuf, or holding an invalid span is refused with the reason', async () => {
  const refused = (value: Buffer | null, reason: RegExp) =>
    assert.throws(
      () => decodeSpanRecords(value),
      (e: Error) => e instanceof SpanRecordError && reason.test(e.message),
    )
  const good = encodeSpanRecord(makeSpan())
  const otherVersion = Buffer.from(good)
  otherVersion[0] = 9
  refused(otherVersion, /unknown span record version 9/)
  refused(Buffer.from([JSON_SPAN_RECORD, 0x7b]), /not valid JSON/)
  refused(encodeSpanRecord({ ...makeSpan(), traceId: 'XYZ' }), /traceId: must be 32 lower-case hex digits/)
  refused(null, /empty record/)

  const body = await sdkRequest()
  const spans = decodeProtobufRequest(body, 'acme').spans
  const record = traceRecords(body, 'acme')[0]!.value
  refused(record.subarray(0, record.length - 3), /span record: malformed protobuf/)
  refused(Buffer.concat([Buffer.from([OTLP_TRACE_RECORD, 0]), record.subarray(6)]), /names no project/)
  refused(Buffer.from([OTLP_TRACE_RECORD, 4, ...Buffer.from('acme')]), /holds no spans/)
  // The first span's trace id zeroed on the wire: the record's spans pass the receiver's checks again.
  const zeroTrace = Buffer.from(record)
  const at = zeroTrace.indexOf(Buffer.from(spans[0]!.traceId, 'hex'))
  zeroTrace.fill(0, at, at + 16)
  refused(zeroTrace, /span record: rejected 1 span: .*trace id is all zeros/)
})
