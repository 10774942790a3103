import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import { test } from 'node:test'
import kafkajs from 'kafkajs'
import { openKafkaTopicWriter } from '@sieve/queue'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { prerequisite } from '@sieve/testkit'
import { scenarios } from '@sieve/testkit/scenarios'
import { resolveChecksConfig, scoreTrace, traceScoreRecords, type ScoreRecord } from '@sieve/scoring'
import { kafkaScoreSink } from '../src/index.js'

// Runs against the broker `npm test` starts for the Kafka tests (KAFKA_BROKERS); there is no other.
const brokers =
  process.env.KAFKA_BROKERS?.split(',')
    .map((s) => s.trim())
    .filter(Boolean) ?? []

test('scores produced to the scores topic, created at start, arrive keyed by trace, one message per score', {
  skip: prerequisite(!brokers.length && 'needs KAFKA_BROKERS (set by npm test with the Kafka broker)'),
}, async () => {
  const settings = uniqueKafkaSettings(brokers)
  const topic = settings.scoresTopic
  const kafka = new kafkajs.Kafka({ clientId: 'scores-test', brokers, logLevel: kafkajs.logLevel.NOTHING })

  const records = traceScoreRecords(scoreTrace(scenarios.refundOutsidePolicy().trace('kafka'), resolveChecksConfig({})))
  // The topic does not exist yet: the writer creates it with the configured partitions.
  const writer = await openKafkaTopicWriter({ kafka: settings, topic, role: 'scorer' })
  await kafkaScoreSink(writer).write(records)
  await writer.close()
  const admin = kafka.admin()
  await admin.connect()
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
  await admin.disconnect()
  assert.equal(topics[0]!.partitions.length, settings.partitions)

  const consumer = kafka.consumer({ groupId: `scores-test-${randomUUID()}` })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  const received: { key: string; record: ScoreRecord }[] = []
  await new Promise<void>((resolve, reject) => {
    consumer
      .run({
        eachMessage: async ({ message }) => {
          received.push({ key: String(message.key), record: JSON.parse(String(message.value)) })
          if (received.length === records.length) resolve()
        },
      })
      .catch(reject)
  })
  await consumer.disconnect()
  assert.deepEqual(new Set(received.map((r) => r.key)), new Set([`kafka/${records[0]!.traceId}`]))
  assert.deepEqual(
    received.map((r) => r.record).sort((a, b) => a.scorerName.localeCompare(b.scorerName)),
    [...records].sort((a, b) => a.scorerName.localeCompare(b.scorerName)),
  )
})

test('a write of many traces is sent in requests the broker takes: megabytes of scores for one partition all arrive', {
  skip: prerequisite(!brokers.length && 'needs KAFKA_BROKERS (set by npm test with the Kafka broker)'),
}, async () => {
  const settings = uniqueKafkaSettings(brokers)
  const topic = settings.scoresTopic
  const record = traceScoreRecords(scoreTrace(scenarios.refundOutsidePolicy().trace('kafka'), resolveChecksConfig({})))[0]!
  // 4,000 scores of one trace (one key, one partition), about 3 MiB: three times what one record batch may hold.
  const records = Array.from({ length: 4000 }, (_, i) => ({ ...record, scorerName: `check_${i}`, detail: 'x'.repeat(400) }))
  const writer = await openKafkaTopicWriter({ kafka: settings, topic, role: 'scorer' })
  try {
    await kafkaScoreSink(writer).write(records)
  } finally {
    await writer.close()
  }
  const kafka = new kafkajs.Kafka({ clientId: 'scores-test', brokers, logLevel: kafkajs.logLevel.NOTHING })
  const admin = kafka.admin()
  await admin.connect()
  const offsets = await admin.fetchTopicOffsets(topic)
  await admin.disconnect()
  assert.equal(
    offsets.reduce((n, p) => n + Number(p.high), 0),
    records.length,
  )
})
