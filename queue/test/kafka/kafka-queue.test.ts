import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import kafkajs from 'kafkajs'
import { UnprocessableSpansError, type QueuedSpan, type Span } from '@sieve/core'
import { scanProtobufRequest } from '@sieve/otlp'
import {
  encodeSpanRecord,
  encodeTraceRecords,
  forwardingOf,
  KafkaSetupError,
  MAX_TRACE_RECORD_BYTES,
  openKafkaQueue,
  type KafkaSettings,
  type KafkaSpanQueue,
} from '@sieve/queue'
import { makeSpan, makeTraces, sharedBrokers, until } from '@sieve/testkit'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { protobufRequest } from '@sieve/testkit/otlp'

let brokers: string[]
let release: () => Promise<void>
let admin: kafkajs.Admin
let raw: kafkajs.Kafka

before(async () => {
  ;({ brokers, release } = await sharedBrokers())
  raw = new kafkajs.Kafka({ clientId: 'test', brokers, logLevel: kafkajs.logLevel.NOTHING })
  admin = raw.admin()
  await admin.connect()
})
after(async () => {
  await admin.disconnect()
  await release()
})

const settings = (partitions = 3): KafkaSettings => uniqueKafkaSettings(brokers, partitions)

async function open(kafka: KafkaSettings): Promise<KafkaSpanQueue> {
  return openKafkaQueue({ kafka, consume: { minBackoffMs: 50, maxBackoffMs: 200, sessionTimeoutMs: 6000 } })
}

async function committed(group: string, topic: string): Promise<Map<number, string>> {
  const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [topic] })
  return new Map(offsets!.partitions.map((p) => [p.partition, p.offset]))
}

async function readDeadLetters(topic: string, count: number) {
  const consumer = raw.consumer({ groupId: `dlq-reader-${randomUUID()}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const seen: { value: Buffer | null; headers: Record<string, string> }[] = []
  await consumer.run({
    eachMessage: async ({ message }) => {
      const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([k, v]) => [k, String(v)]))
      seen.push({ value: message.value, headers })
    },
  })
  await until('dead letters', () => seen.length >= count)
  await consumer.disconnect()
  return seen
}

test('every published span reaches the group once, in partition order, all spans of a trace on one partition', async () => {
  const kafka = settings()
  const queue = await open(kafka)
  const spans = makeTraces(200, 5)
  await Promise.all([queue.publish(spans.slice(0, 500)), queue.publish(spans.slice(500))])

  const received: QueuedSpan[] = []
  const partitionsPerCall: number[] = []
  let assigned = 0
  const sub = await queue.subscribe({
    group: 'ingester',
    onAssigned: () => assigned++,
    onBatch: async (batch) => {
      received.push(...batch)
      partitionsPerCall.push(new Set(batch.map((q) => q.partition)).size)
    },
  })
  await until('all spans', () => received.length >= spans.length)
  await until('commits', async () => {
    const offsets = await committed('ingester', kafka.spansTopic)
    return [...offsets.values()].reduce((n, o) => n + Number(o), 0) === spans.length
  })
  await sub.close()
  await queue.close()

  assert.ok(assigned >= 1, 'the member is told it was assigned its partitions')
  assert.equal(received.length, spans.length)
  const byId = new Map(spans.map((s) => [s.spanId, s]))
  for (const r of received) assert.deepEqual(r.span, byId.get(r.span.spanId))
  // What each span weighed on the way in, for the scorer's byte bounds: here, its own record.
  for (const r of received) assert.equal(r.bytes, encodeSpanRecord(r.span).length)
  const partitionOfTrace = new Map<string, number>()
  for (const r of received) {
    const seen = partitionOfTrace.get(r.span.traceId) ?? r.partition
    assert.equal(r.partition, seen, `trace ${r.span.traceId} split across partitions`)
    partitionOfTrace.set(r.span.traceId, r.partition)
  }
  assert.ok(new Set(partitionOfTrace.values()).size > 1, 'traces spread over the partitions')
  // The collector names partitions itself; a plain kafkajs producer (an older collector, another
  // tool) must put the same trace on the same partition of a topic of as many partitions.
  const plainTopic = `${kafka.spansTopic}.plain`
  await admin.createTopics({ topics: [{ topic: plainTopic, numPartitions: kafka.partitions }], waitForLeaders: true })
  const plain = raw.producer()
  await plain.connect()
  for (const [traceId, partition] of [...partitionOfTrace].slice(0, 30)) {
    const [written] = await plain.send({ topic: plainTopic, messages: [{ key: traceId, value: 'x' }] })
    assert.equal(written!.partition, partition, `trace ${traceId}`)
  }
  await plain.disconnect()
  assert.ok(Math.max(...partitionsPerCall) > 1, 'the partitions of a fetch are joined into one onBatch call')
  for (const partition of new Set(received.map((q) => q.partition))) {
    const offsets = received.filter((q) => q.partition === partition).map((q) => Number(q.offset))
    assert.deepEqual(
      offsets,
      offsets.map((_, i) => i),
      `partition ${partition} in order, each record once`,
    )
  }
})

test('a failing batch is delivered again after a pause and nothing is committed until it succeeds', async () => {
  const kafka = settings(1)
  const queue = await open(kafka)
  const spans = makeTraces(10, 3)
  await queue.publish(spans)

  let failures = 0
  let storageUp = false
  const handled = new Set<string>()
  const sub = await queue.subscribe({
    group: 'ingester',
    onBatch: async (batch) => {
      if (!storageUp) {
        failures++
        throw new Error('storage down')
      }
      for (const q of batch) handled.add(q.span.spanId)
    },
  })
  await until('three failed attempts', () => failures >= 3)
  assert.deepEqual([...(await committed('ingester', kafka.spansTopic)).values()], ['-1'])
  storageUp = true
  await until('all spans handled', () => handled.size === spans.length)
  await until('commit', async () => (await committed('ingester', kafka.spansTopic)).get(0) === String(spans.length))
  await sub.close()
  await queue.close()
})

test('with autoCommit off nothing is committed until the subscriber commits', async () => {
  const kafka = settings(1)
  const queue = await open(kafka)
  await queue.publish(makeTraces(4, 5))
  const received: QueuedSpan[] = []
  const sub = await queue.subscribe({ group: 'scorer', autoCommit: false, onBatch: async (b) => void received.push(...b) })
  await until('spans', () => received.length === 20)
  assert.equal((await committed('scorer', kafka.spansTopic)).get(0), '-1')
  await sub.commit(new Map([[0, '12']]))
  assert.equal((await committed('scorer', kafka.spansTopic)).get(0), '12')
  await sub.close()

  // A new member of the group starts after the commit: it sees the 8 spans not committed.
  const again: QueuedSpan[] = []
  const sub2 = await queue.subscribe({ group: 'scorer', autoCommit: false, onBatch: async (b) => void again.push(...b) })
  await until('redelivery', () => again.length === 8)
  assert.deepEqual(
    again.map((q) => q.offset),
    ['12', '13', '14', '15', '16', '17', '18', '19'],
  )
  await sub2.close()
  await queue.close()
})

test('a record that is not a span goes with its error to the dead-letter topic and the next records are handled', async () => {
  const kafka = settings(1)
  const queue = await open(kafka)
  const producer = raw.producer()
  await producer.connect()
  const before = makeSpan()
  await queue.publish([before])
  await producer.send({ topic: kafka.spansTopic, messages: [{ key: 'x', value: 'not a span' }] })
  await producer.disconnect()
  const afterSpans = makeTraces(3, 2)
  await queue.publish(afterSpans)

  const handled: Span[] = []
  const sub = await queue.subscribe({ group: 'ingester', onBatch: async (b) => void handled.push(...b.map((q) => q.span)) })
  await until('spans after the poison record', () => handled.length === 7)
  const [dead] = await readDeadLetters(kafka.deadLetterTopic, 1)
  assert.equal(dead!.value!.toString(), 'not a span')
  assert.match(dead!.headers['sieve.error']!, /unknown span record version 110/)
  assert.equal(dead!.headers['sieve.source.offset'], '1')
  assert.equal(dead!.headers['sieve.source.topic'], kafka.spansTopic)
  await until('commit past everything', async () => (await committed('ingester', kafka.spansTopic)).get(0) === '8')
  await sub.close()
  await queue.close()
})

test('a span storage refuses for good is isolated from its batch and dead-lettered; the rest is stored', async () => {
  const kafka = settings(1)
  const queue = await open(kafka)
  const spans = makeTraces(20, 5)
  const refused = spans[37]!
  await queue.publish(spans)

  const stored = new Set<string>()
  const sub = await queue.subscribe({
    group: 'ingester',
    onBatch: async (batch) => {
      if (batch.some((q) => q.span.spanId === refused.spanId)) throw new UnprocessableSpansError('Cannot parse DateTime64')
      for (const q of batch) stored.add(q.span.spanId)
    },
  })
  await until('all other spans', () => stored.size === spans.length - 1)
  const [dead] = await readDeadLetters(kafka.deadLetterTopic, 1)
  assert.equal(dead!.headers['sieve.error'], 'Cannot parse DateTime64')
  assert.equal(dead!.headers['sieve.source.offset'], '37')
  assert.ok(!stored.has(refused.spanId))
  await until('commit', async () => (await committed('ingester', kafka.spansTopic)).get(0) === String(spans.length))
  await sub.close()
  await queue.close()
})

test('two members of a group share the partitions; a member leaving mid-stream loses nothing', async () => {
  const kafka = settings(4)
  const queue = await open(kafka)
  const spans = makeTraces(1000, 3)
  const seen = new Map<string, number>()
  const count = async (b: QueuedSpan[]) => {
    for (const q of b) seen.set(q.span.spanId, (seen.get(q.span.spanId) ?? 0) + 1)
  }
  const first = await queue.subscribe({ group: 'ingester', onBatch: count })
  const second = await queue.subscribe({ group: 'ingester', onBatch: count })
  for (let i = 0; i < spans.length; i += 100) await queue.publish(spans.slice(i, i + 100))
  await until('half', () => seen.size >= spans.length / 2)
  await first.close()
  await until('every span', () => seen.size === spans.length)
  await until('commits', async () => {
    const offsets = await committed('ingester', kafka.spansTopic)
    return [...offsets.values()].reduce((n, o) => n + Number(o), 0) === spans.length
  })
  await second.close()
  await queue.close()
  assert.equal(seen.size, spans.length)
})

test('a missing topic is created with the configured partitions, or start-up says how to create it', async () => {
  const kafka = settings(5)
  await assert.rejects(
    openKafkaQueue({ kafka, createTopics: false }),
    (e: Error) =>
      e instanceof KafkaSetupError &&
      e.message.includes(`kafka-topics.sh --bootstrap-server ${brokers.join(',')} --create --topic ${kafka.spansTopic} --partitions 5`),
  )
  const queue = await openKafkaQueue({ kafka })
  const meta = await admin.fetchTopicMetadata({ topics: [kafka.spansTopic] })
  assert.equal(meta.topics[0]!.partitions.length, 5)
  await queue.close()
})

test('a publish bigger than one Kafka request (3 MB of one trace, incompressible) is split and acknowledged whole', async () => {
  const kafka = settings(1)
  const queue = await open(kafka)
  assert.deepEqual(queue.capabilities, { durability: 'acknowledged', forwardsProtobuf: true })
  assert.equal(queue.saturated(), undefined)
  const [trace] = makeTraces(1, 1)
  const big = Array.from({ length: 3000 }, () => makeSpan({ traceId: trace!.traceId, attributes: { 'gen_ai.prompt': randomBytes(450).toString('hex') } }))
  await queue.publish(big)
  const offsets = await admin.fetchTopicOffsets(kafka.spansTopic)
  assert.equal(offsets[0]!.high, '3000')
  // The same trace from one OTLP protobuf request: version 2 records, split to fit.
  const scanned = scanProtobufRequest(protobufRequest(big), 'default')
  const records = encodeTraceRecords(scanned)
  assert.ok(records.length > 1 && records.every((r) => r.value.length < MAX_TRACE_RECORD_BYTES + 1024))
  await forwardingOf(queue)!.publishScanned(scanned)
  const after = await admin.fetchTopicOffsets(kafka.spansTopic)
  assert.equal(after[0]!.high, String(3000 + records.length))
  await queue.close()
})
