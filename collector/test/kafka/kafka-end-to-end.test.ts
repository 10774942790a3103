// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { readTrace, type Span } from '@sieve/core'
import { decodeJsonRequest, decodeProtobufRequest } from '@sieve/otlp'
import { decodeSpanRecords, OTLP_TRACE_RECORD } from '@sieve/queue'
import kafkajs from 'kafkajs'
import { countRows, makeSpan, makeTraces, sharedBrokers, until } from '@sieve/testkit'
import { startKafkaStack, type KafkaStack } from '@sieve/testkit/kafka-stack'
import { otelSpans, protobufRequest, exampleOtlpTrace } from '@sieve/testkit/otlp'

let stack: KafkaStack
let release: () => Promise<void>
before(async () => {
  const shared = await sharedBrokers()
  release = shared.release
  stack = await startKafkaStack(shared.brokers, new Map([['k-acme', 'acme']]))
})
after(async () => {
  await stack?.close()
  await release?.()
})

const bySpanId = (a: Span, b: Span) => a.spanId.localeCompare(b.spanId)

async function storedTrace(traceId: string, spans: number): Promise<Span[]> {
  let stored: Span[] = []
  await until(`${spans} spans of trace ${traceId} in ClickHouse`, async () => {
    stored = (await readTrace(stack.storage, 'acme', traceId))?.spans ?? []
    return stored.length === spans
  })
  return stored.sort(bySpanId)
}

async function readDeadLetters(count: number): Promise<{ key: string; error: string; value: Buffer }[]> {
  const raw = new kafkajs.Kafka({ clientId: 'dead-letter-check', brokers: stack.kafka.brokers, logLevel: kafkajs.logLevel.NOTHING })
  const consumer = raw.consumer({ groupId: `dead-letter-check-${count}` })
  await consumer.connect()
  await consumer.subscribe({ topic: stack.kafka.deadLetterTopic, fromBeginning: true })
  const dead: { key: string; error: string; value: Buffer }[] = []
  await consumer.run({
    eachMessage: async ({ message }) => void dead.push({ key: String(message.key), error: String(message.headers?.['sieve.error']), value: message.value! }),
  })
  await until('dead letters', () => dead.length >= count)
  await consumer.disconnect()
  return dead
}

/**
 * Runs `body` while ClickHouse refuses spans named `refused by storage…`: the decoders let
 * through only what the columns can hold, so a constraint is how a test gets a span storage refuses.
 */
async function whileStorageRefuses(body: () => Promise<void>): Promise<void> {
  await stack.storage.command({ query: "ALTER TABLE spans ADD CONSTRAINT refuse_test CHECK name NOT LIKE 'refused by storage%'" })
  try {
    await body()
  } finally {
    await stack.storage.command({ query: 'ALTER TABLE spans DROP CONSTRAINT refuse_test' })
  }
}

async function post(contentType: string, body: Buffer): Promise<number> {
  const res = await fetch(stack.url, { method: 'POST', headers: { 'content-type': contentType, authorization: 'Bearer k-acme' }, body })
  await res.arrayBuffer()
  return res.status
}

test('OTLP JSON → collector → Kafka → ingester → ClickHouse: every field as the receiver decoded it', async () => {
  const body = exampleOtlpTrace()
  const expected = decodeJsonRequest(body, 'acme').spans
  assert.equal(await post('application/json', body), 200)
  const stored = await storedTrace('9f3c2a7b41d8e6f05a1b2c3d4e5f6071', 5)
  assert.deepEqual(stored, [...expected].sort(bySpanId))
  // And as the OTLP/JSON document says, independently of the decoder.
  assert.deepEqual(
    stored.map((s) => [s.spanId, s.parentSpanId, s.serviceName, s.kind]),
    [
      ['a1b2c3d4e5f60718', '', 'support-agent', 'SERVER'],
      ['b2c3d4e5f6071829', 'a1b2c3d4e5f60718', 'support-agent', 'CLIENT'],
      ['c3d4e5f60718293a', 'a1b2c3d4e5f60718', 'support-agent', 'INTERNAL'],
      ['d4e5f60718293a4b', 'c3d4e5f60718293a', 'orders-api', 'SERVER'],
      ['e5f60718293a4b5c', 'd4e5f60718293a4b', 'unknown_service', 'PRODUCER'],
    ],
  )
  const chat = stored.find((s) => s.spanId === 'b2c3d4e5f6071829')!
  assert.equal(chat.name, 'chat gpt-4o')
  assert.equal(chat.startTimeUnixNano, '1760000000100000000')
  assert.equal(chat.endTimeUnixNano, '1760000001400000123')
  assert.deepEqual(chat.status, { code: 'ERROR', message: 'rate limited, retried once' })
  assert.deepEqual(chat.scope, { name: 'sieve.example.agent', version: '1.2.0', attributes: { 'scope.team': 'support' } })
  assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 812)
  assert.equal(chat.attributes['gen_ai.request.seed'], '9007199254740993')
  assert.equal(chat.attributes['gen_ai.request.temperature'], 0.2)
  assert.equal(chat.attributes['gen_ai.request.stream'], false)
  assert.deepEqual(chat.attributes['gen_ai.tool.definitions'], { name: 'lookup_order', params: { required: ['order_id'], strict: true } })
  assert.deepEqual(chat.attributes['example.mixed'], ['a', -3, 1.5, true, null, []])
  assert.equal(chat.attributes['example.request_digest'], '3q2+7w==')
  assert.equal(chat.attributes['example.placeholder'], null)
  assert.deepEqual(
    chat.links.map((l) => [l.traceId, l.spanId, l.flags]),
    [['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 769]],
  )
  assert.deepEqual(
    chat.events.map((e) => [e.name, e.attributes]),
    [['retry', { 'http.response.status_code': 429, 'retry.delay_s': 0.25 }]],
  )
})

test('OTLP protobuf from the OpenTelemetry SDK → Kafka → ClickHouse: every field, every attribute type', async () => {
  const otel = await otelSpans()
  const body = Buffer.from(ProtobufTraceSerializer.serializeRequest(otel)!)
  const expected = decodeProtobufRequest(body, 'acme').spans
  assert.equal(await post('application/x-protobuf', body), 200)
  const stored = await storedTrace(otel[0]!.spanContext().traceId, otel.length)
  assert.deepEqual(stored, [...expected].sort(bySpanId))

  const chat = stored.find((s) => s.name === 'chat gpt-4o')!
  const chatOtel = otel.find((s) => s.name === 'chat gpt-4o')!
  assert.equal(chat.spanId, chatOtel.spanContext().spanId)
  assert.equal(chat.parentSpanId, chatOtel.parentSpanContext?.spanId)
  assert.equal(chat.startTimeUnixNano, (BigInt(chatOtel.startTime[0]) * 1_000_000_000n + BigInt(chatOtel.startTime[1])).toString())
  assert.equal(chat.status.code, 'ERROR')
  assert.equal(chat.status.message, 'rate limited upstream')
  assert.equal(chat.attributes['gen_ai.usage.input_tokens'], 1234)
  assert.equal(chat.attributes['gen_ai.request.temperature'], 0.25)
  assert.equal(chat.attributes['negative.int'], -42)
  assert.equal(chat.attributes.streaming, false)
  assert.deepEqual(chat.attributes['gen_ai.response.finish_reasons'], ['stop', 'length'])
  assert.deepEqual(
    chat.events.map((e) => e.name),
    chatOtel.events.map((e) => e.name),
  )
  assert.equal(chat.droppedEventsCount, chatOtel.droppedEventsCount)
  assert.deepEqual(
    chat.links.map((l) => l.spanId),
    chatOtel.links.map((l) => l.context.spanId),
  )
  assert.equal(chat.resource['host.cores'], 2)

  // The rollup trails the spans by design (rewritten off the acknowledgement path).
  await until(
    'the traces rollup',
    async () => (await countRows(stack.storage, `SELECT span_count FROM traces FINAL WHERE trace_id = '${chat.traceId}'`)) === otel.length,
  )
})

test('a poison record on the topic goes to the dead-letter topic and the spans after it are stored', async () => {
  const raw = new kafkajs.Kafka({ clientId: 'poison', brokers: stack.kafka.brokers, logLevel: kafkajs.logLevel.NOTHING })
  const producer = raw.producer()
  await producer.connect()
  await producer.send({ topic: stack.kafka.spansTopic, messages: [{ key: 'poison', value: Buffer.from([1, 0x7b, 0x7d]) }] })
  await producer.disconnect()
  const otel = await otelSpans()
  assert.equal(await post('application/x-protobuf', Buffer.from(ProtobufTraceSerializer.serializeRequest(otel)!)), 200)
  await storedTrace(otel[0]!.spanContext().traceId, otel.length)

  const dead = await readDeadLetters(1)
  assert.equal(dead[0]!.key, 'poison')
  assert.match(dead[0]!.error, /^span record: projectId: /)
  assert.equal((await stack.metrics.kafkaDeadLetters.get()).values[0]!.value, 1)
})

test('a span ClickHouse refuses is dead-lettered alone; its batch-mates are stored', () =>
  whileStorageRefuses(async () => {
    const [good1, good2] = makeTraces(2, 1)
    const bad = makeSpan({ traceId: good1!.traceId, name: 'refused by storage' })
    await stack.queue.publish([good1!, bad, good2!])
    await until(
      'the good spans',
      async () => (await countRows(stack.storage, `SELECT count() FROM spans FINAL WHERE span_id IN ('${good1!.spanId}', '${good2!.spanId}')`)) === 2,
    )
    const dead = await readDeadLetters(2)
    assert.equal(dead[1]!.key, bad.traceId)
    assert.match(dead[1]!.error, /Code: 469\./)
    assert.deepEqual(
      decodeSpanRecords(dead[1]!.value).map((s) => s.spanId),
      [bad.spanId],
      'the dead letter holds the span, replayable',
    )
    assert.equal(await countRows(stack.storage, `SELECT count() FROM spans WHERE span_id = '${bad.spanId}'`), 0)
  }))

test('a version 2 record that is not valid protobuf goes to the dead-letter topic with its error; the spans after it are stored', async () => {
  const raw = new kafkajs.Kafka({ clientId: 'poison-v2', brokers: stack.kafka.brokers, logLevel: kafkajs.logLevel.NOTHING })
  const producer = raw.producer()
  await producer.connect()
  const truncated = Buffer.from([OTLP_TRACE_RECORD, 4, ...Buffer.from('acme'), 0x0a, 0x7f, 0x0a])
  await producer.send({ topic: stack.kafka.spansTopic, messages: [{ key: 'poison-v2', value: truncated }] })
  await producer.disconnect()
  const [span] = makeTraces(1, 1)
  assert.equal(await post('application/x-protobuf', protobufRequest([span!])), 200)
  await storedTrace(span!.traceId, 1)

  const dead = await readDeadLetters(3)
  assert.equal(dead[2]!.key, 'poison-v2')
  assert.match(dead[2]!.error, /^span record: malformed protobuf: length 127 runs past the end/)
  assert.deepEqual(dead[2]!.value, truncated)
})

test('a span ClickHouse refuses inside a version 2 record is dead-lettered alone; its trace-mates are stored', () =>
  whileStorageRefuses(async () => {
    const [good1, good2] = makeTraces(1, 2)
    const bad = makeSpan({ traceId: good1!.traceId, name: 'refused by storage' })
    // A time no column holds never gets this far: the collector rejects it in partial_success.
    const never = makeSpan({ traceId: good1!.traceId, startTimeUnixNano: '18446744073709551615', endTimeUnixNano: '18446744073709551615' })
    assert.equal(await post('application/x-protobuf', protobufRequest([good1!, bad, never, good2!])), 200)
    await until(
      'the good spans',
      async () => (await countRows(stack.storage, `SELECT count() FROM spans FINAL WHERE span_id IN ('${good1!.spanId}', '${good2!.spanId}')`)) === 2,
    )
    const dead = await readDeadLetters(4)
    assert.equal(dead.length, 4)
    assert.equal(dead[3]!.key, bad.traceId)
    assert.match(dead[3]!.error, /Code: 469\./)
    const [replayable] = decodeSpanRecords(dead[3]!.value)
    assert.deepEqual([replayable!.spanId, replayable!.projectId], [bad.spanId, 'acme'])
    assert.equal(await countRows(stack.storage, `SELECT count() FROM spans WHERE span_id IN ('${bad.spanId}', '${never.spanId}')`), 0)
  }))

test('/metrics shows Kafka produce and handling rates and the consumer lag', async () => {
  const res = await fetch(stack.url.replace('/v1/traces', '/metrics'))
  const text = await res.text()
  assert.match(text, /^sieve_kafka_produced_spans_total [1-9]\d*$/m)
  assert.match(text, /^sieve_kafka_handled_spans_total\{group="ingester"\} [1-9]\d*$/m)
  assert.match(text, /^sieve_kafka_consumer_lag\{group="ingester",partition="\d+"\} 0$/m)
  assert.match(text, /^sieve_insert_rows_total\{table="spans"\} [1-9]\d*$/m)
})
