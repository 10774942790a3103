import assert from 'node:assert/strict'
import { test } from 'node:test'
import { context, trace, TraceFlags } from '@opentelemetry/api'
import { SeverityNumber } from '@opentelemetry/api-logs'
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { decodeLogsRequest, encodeExportResponse, OtlpDecodeError } from '../src/index.js'

/*
 * OTLP logs as the OpenTelemetry JavaScript SDK writes them (its LoggerProvider and serializers):
 * the GenAI events among them become events of the spans they name; other records are rejected
 * and counted, never kept.
 */

const TRACE = '5b8efff798038103d269b633813fc60c'
const SPAN = 'eee19b7ec3c1b174'
const inSpan = trace.setSpanContext(context.active(), { traceId: TRACE, spanId: SPAN, traceFlags: TraceFlags.SAMPLED })
const T = 1_760_000_000_000 // ms

function emitted(): ReadableLogRecord[] {
  const memory = new InMemoryLogRecordExporter()
  const provider = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] })
  const logger = provider.getLogger('opentelemetry.instrumentation.openai_v2')
  // The older conventions' per-message events: the message in the body, the role in the name.
  logger.emit({
    eventName: 'gen_ai.user.message',
    timestamp: T,
    context: inSpan,
    attributes: { 'gen_ai.system': 'openai' },
    body: { content: 'Where is order A-1?' },
  })
  // Before event_name was a field: the name as an attribute.
  logger.emit({
    timestamp: T + 1,
    context: inSpan,
    attributes: { 'event.name': 'gen_ai.choice', 'gen_ai.system': 'openai' },
    body: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'It ships today.' } },
  })
  logger.emit({ timestamp: T + 2, context: inSpan, severityNumber: SeverityNumber.INFO, body: 'user 42 logged in' })
  logger.emit({ eventName: 'gen_ai.client.inference.operation.details', timestamp: T + 3, attributes: { 'gen_ai.operation.name': 'chat' } })
  logger.emit({ eventName: 'http.request', timestamp: T + 4, context: inSpan })
  return memory.getFinishedLogRecords()
}

const kept = [
  {
    traceId: TRACE,
    spanId: SPAN,
    seq: 0,
    event: {
      timeUnixNano: '1760000000000000000',
      name: 'gen_ai.user.message',
      attributes: { 'gen_ai.system': 'openai', 'event.body': { content: 'Where is order A-1?' } },
      droppedAttributesCount: 0,
    },
  },
  {
    traceId: TRACE,
    spanId: SPAN,
    seq: 1,
    event: {
      timeUnixNano: '1760000000001000000',
      name: 'gen_ai.choice',
      attributes: { 'gen_ai.system': 'openai', 'event.body': { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'It ships today.' } } },
      droppedAttributesCount: 0,
    },
  },
]

const rejections = [
  'resourceLogs[0].scopeLogs[0].logRecords[2]: a log record without an event name is not a GenAI event; Sieve keeps the GenAI events of traced calls only',
  "resourceLogs[0].scopeLogs[0].logRecords[3]: GenAI event 'gen_ai.client.inference.operation.details' names no span (a 16-byte trace id and an 8-byte span id): Sieve keeps an event with its span",
  "resourceLogs[0].scopeLogs[0].logRecords[4]: event 'http.request' is not a GenAI event; Sieve keeps the GenAI events of traced calls only",
]

for (const [format, serialize] of [
  ['protobuf', (records: ReadableLogRecord[]) => ProtobufLogsSerializer.serializeRequest(records)!],
  ['json', (records: ReadableLogRecord[]) => JsonLogsSerializer.serializeRequest(records)!],
] as const) {
  test(`OTLP logs in ${format}: GenAI events of a span are kept as its events, other records rejected with the reason`, () => {
    const out = decodeLogsRequest(format, Buffer.from(serialize(emitted())))
    assert.deepEqual(out.events, kept)
    assert.equal(out.rejected, 3)
    assert.equal(out.errorMessage, `rejected 3 log records: ${rejections.join('; ')}`)
  })
}

test('a body that is not a logs export request is refused whole; the response names log records in JSON', () => {
  assert.throws(() => decodeLogsRequest('protobuf', Buffer.from([0x0a, 0x05, 0x12])), OtlpDecodeError)
  assert.throws(() => decodeLogsRequest('json', Buffer.from('{"resourceLogs": 3}')), /not an OTLP ExportLogsServiceRequest: resourceLogs: /)
  assert.deepEqual(JSON.parse(encodeExportResponse('json', 2, 'why', 'LogRecords').toString()), {
    partialSuccess: { rejectedLogRecords: '2', errorMessage: 'why' },
  })
})

test('a record with a malformed id, an event time outside what Sieve stores, a value nested too deep or an overlong name is rejected alone', () => {
  let deep: unknown = { stringValue: 'x' }
  for (let i = 0; i < 70; i++) deep = { kvlistValue: { values: [{ key: 'k', value: deep }] } }
  const record = (extra: object) => ({ eventName: 'gen_ai.user.message', traceId: TRACE, spanId: SPAN, timeUnixNano: '1760000000000000000', ...extra })
  const body = {
    resourceLogs: [
      {
        scopeLogs: [
          {
            logRecords: [
              record({ spanId: 'zz' }),
              record({ timeUnixNano: '5' }),
              record({ body: deep }),
              record({ timeUnixNano: '0', observedTimeUnixNano: '1760000000000000007' }),
              record({ eventName: `gen_ai.${'x'.repeat(300)}` }),
            ],
          },
        ],
      },
    ],
  }
  const out = decodeLogsRequest('json', Buffer.from(JSON.stringify(body)))
  assert.deepEqual(
    out.events.map((e) => e.event.timeUnixNano),
    ['1760000000000000007'],
  )
  assert.equal(out.rejected, 4)
  assert.match(
    out.errorMessage,
    /logRecords\[0\]: span id 'zz' is not hex; .*logRecords\[1\]: GenAI event 'gen_ai.user.message' at 5 ns is outside the times Sieve stores; .*logRecords\[2\]: attribute value nested deeper than 64 levels; .*logRecords\[4\]: event name 'gen_ai.x+\.\.\.' is longer than 256 characters/,
  )
})
