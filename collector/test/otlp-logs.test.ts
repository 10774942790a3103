import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { context, SpanKind, trace } from '@opentelemetry/api'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http'
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import type { Storage } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import express from 'express'
import { BytesInFlight, createLogsRouter, listen } from '@sieve/http'

/*
 * GenAI events sent as OTLP log records, by the OpenTelemetry JavaScript SDK's own log exporters
 * (protobuf and JSON), beside a chat span that carries no content: the conversation the read API
 * gives is read from the events, under the sender's project only.
 */

const KEYS = new Map([
  ['key-a', 'proj-a'],
  ['key-b', 'proj-b'],
])
let sieve: RunningSieve

before(async () => {
  sieve = await startSieve({ apiKeys: KEYS })
})
after(() => sieve.stop())

const exported = (exporter: { export(items: never[], done: (r: ExportResult) => void): void }, items: unknown[]) =>
  new Promise<ExportResult>((resolve) => exporter.export(items as never[], resolve))

/** A chat span without content, and the events of its call as the older GenAI conventions emit them through the Logs API. */
async function chatCall(key: string, logExporter: LogRecordExporter): Promise<{ traceId: string; records: ReadableLogRecord[] }> {
  const provider = new BasicTracerProvider({
    spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${sieve.url}/v1/traces`, headers: { 'x-api-key': key } }))],
  })
  const memory = new InMemoryLogRecordExporter()
  const logger = new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: memory })] }).getLogger('openai')
  const span = provider
    .getTracer('openai')
    .startSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT, attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini' } })
  const inSpan = trace.setSpan(context.active(), span)
  const at = Date.now()
  // One clock reading for all: the order they were sent in is what orders them.
  logger.emit({ eventName: 'gen_ai.system.message', timestamp: at, context: inSpan, body: { content: 'You are the support agent of Acme.' } })
  logger.emit({ eventName: 'gen_ai.user.message', timestamp: at, context: inSpan, body: { content: 'ok' } })
  logger.emit({ eventName: 'gen_ai.assistant.message', timestamp: at, context: inSpan, body: { content: 'Anything else?' } })
  // The same message again within the tick: a second turn, not a retry.
  logger.emit({ eventName: 'gen_ai.user.message', timestamp: at, context: inSpan, body: { content: 'ok' } })
  logger.emit({ eventName: 'gen_ai.user.message', timestamp: at, context: inSpan, body: { content: 'Where is order A-1?' } })
  logger.emit({
    eventName: 'gen_ai.choice',
    timestamp: at,
    context: inSpan,
    body: { index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'It ships today.' } },
  })
  logger.emit({ timestamp: at, context: inSpan, body: 'GET /orders/A-1 200' })
  span.end()
  await provider.shutdown()
  const records = memory.getFinishedLogRecords()
  assert.equal((await exported(logExporter, records)).code, ExportResultCode.SUCCESS)
  return { traceId: span.spanContext().traceId, records }
}

async function conversation(key: string, traceId: string): Promise<{ status: number; turns?: string[] }> {
  const res = await fetch(`${sieve.url}/api/traces/${traceId}`, { headers: { 'x-api-key': key } })
  if (res.status !== 200) return { status: res.status }
  const body = (await res.json()) as { conversation: { turns: { role: string; text: string }[] } }
  return { status: 200, turns: body.conversation.turns.map((t) => `${t.role}: ${t.text}`) }
}

const TURNS = [
  'system: You are the support agent of Acme.',
  'user: ok',
  'assistant: Anything else?',
  'user: ok',
  'user: Where is order A-1?',
  'assistant: It ships today.',
]

for (const [format, make] of [
  ['protobuf', () => new ProtoLogExporter({ url: `${sieve.url}/v1/logs`, headers: { 'x-api-key': 'key-a' } })],
  ['JSON', () => new JsonLogExporter({ url: `${sieve.url}/v1/logs`, headers: { authorization: 'Bearer key-a' } })],
] as const) {
  test(`GenAI events exported as OTLP logs (${format}) are the conversation of their span, in the order sent, repeats kept, for their project only`, async () => {
    const exporter = make()
    const { traceId, records } = await chatCall('key-a', exporter)
    assert.deepEqual(await conversation('key-a', traceId), { status: 200, turns: TURNS })
    // A retried export stores nothing twice.
    assert.equal((await exported(exporter, records)).code, ExportResultCode.SUCCESS)
    assert.deepEqual(await conversation('key-a', traceId), { status: 200, turns: TURNS })
    assert.equal((await conversation('key-b', traceId)).status, 404)
    await exporter.shutdown()
  })
}

test('records that are not GenAI events of spans are counted as rejected in a 200, never kept; a body that is no logs request is a 400', async () => {
  const post = (body: unknown, key = 'key-a') =>
    fetch(`${sieve.url}/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) })
  const appLog = { timeUnixNano: '1760000000000000000', body: { stringValue: 'user 42 logged in' } }
  // An app's own logs, as the Java agent exports them by default: not an error, not kept.
  const onlyApp = await post({ resourceLogs: [{ scopeLogs: [{ logRecords: [appLog] }] }] })
  assert.equal(onlyApp.status, 200)
  assert.deepEqual(await onlyApp.json(), {
    partialSuccess: {
      rejectedLogRecords: '1',
      errorMessage:
        'rejected 1 log record: resourceLogs[0].scopeLogs[0].logRecords[0]: a log record without an event name is not a GenAI event; Sieve keeps the GenAI events of traced calls only',
    },
  })
  const event = {
    eventName: 'gen_ai.user.message',
    traceId: 'AB'.repeat(16),
    spanId: 'CD'.repeat(8),
    timeUnixNano: '1760000000000000000',
    body: { kvlistValue: { values: [{ key: 'content', value: { stringValue: 'hi' } }] } },
  }
  const mixed = await post({ resourceLogs: [{ scopeLogs: [{ logRecords: [appLog, event] }] }] })
  assert.equal(mixed.status, 200)
  assert.deepEqual(await mixed.json(), {
    partialSuccess: {
      rejectedLogRecords: '1',
      errorMessage:
        'rejected 1 log record: resourceLogs[0].scopeLogs[0].logRecords[0]: a log record without an event name is not a GenAI event; Sieve keeps the GenAI events of traced calls only',
    },
  })
  assert.equal((await post({ resourceLogs: 'x' })).status, 400)
  assert.equal((await post({}, 'no-such-key')).status, 401)
  const metrics = await (await fetch(`${sieve.url}/metrics`)).text()
  assert.match(metrics, /^sieve_log_records_total\{project="proj-a",outcome="rejected"\} [1-9]/m)
  assert.match(metrics, /^sieve_log_records_total\{project="proj-a",outcome="kept"\} [1-9]/m)
  const empty = await fetch(`${sieve.url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', 'x-api-key': 'key-a' },
    body: new Uint8Array(0),
  })
  assert.equal(empty.status, 200)
})

test('storage refusing the events is a 503 with Retry-After that never quotes the storage error, which goes to the log', async () => {
  const logged: string[] = []
  const refusing: Storage = {
    ...sieve.storage,
    insert: () => Promise.reject(new Error('Code: 241. DB::Exception: Memory limit exceeded while inserting row (proj-b secret)')),
  }
  const app = express().use(
    createLogsRouter({
      storage: refusing,
      apiKeys: KEYS,
      maxBodyBytes: 1 << 20,
      metrics: createPipelineMetrics(),
      log: (message) => void logged.push(message),
    }),
  )
  const server = await listen(app, '127.0.0.1', 0)
  try {
    const event = { eventName: 'gen_ai.user.message', traceId: 'ab'.repeat(16), spanId: 'cd'.repeat(8), timeUnixNano: '1760000000000000000' }
    const res = await fetch(`${server.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'key-a' },
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [event] }] }] }),
    })
    assert.deepEqual([res.status, res.headers.get('retry-after')], [503, '5'])
    assert.deepEqual(await res.json(), { code: 14, message: 'storage is unavailable: the events were not stored; retry later' })
    assert.ok(
      logged.some((line) => line.includes('Memory limit exceeded')),
      logged.join('\n'),
    )
  } finally {
    await server.stop()
  }
})

test('log bodies count against the bytes in flight the trace bodies hold: past the bound a 429 with Retry-After, counted as shed', async () => {
  const metrics = createPipelineMetrics()
  const bytesInFlight = new BytesInFlight(4096, metrics)
  const app = express().use(createLogsRouter({ storage: sieve.storage, apiKeys: KEYS, maxBodyBytes: 1 << 20, metrics, log: () => {}, bytesInFlight }))
  const server = await listen(app, '127.0.0.1', 0)
  // A trace body being read elsewhere holds most of the bound.
  const traceBody = bytesInFlight.share()
  assert.ok(traceBody.take(4000))
  const event = {
    eventName: 'gen_ai.user.message',
    traceId: 'ab'.repeat(16),
    spanId: 'cd'.repeat(8),
    timeUnixNano: '1760000000000000000',
    body: { stringValue: 'x'.repeat(200) },
  }
  const post = () =>
    fetch(`${server.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'key-a' },
      body: JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [event] }] }] }),
    })
  try {
    const refused = await post()
    assert.deepEqual([refused.status, refused.headers.get('retry-after')], [429, '1'])
    assert.match(await metrics.registry.metrics(), /^sieve_otlp_requests_shed_total\{reason="bytes_in_flight"\} 1$/m)
    traceBody.release()
    assert.equal((await post()).status, 200)
    assert.equal(bytesInFlight.bytes, 0, 'each request gives back what it took')
  } finally {
    await server.stop()
  }
})
