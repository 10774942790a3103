import { randomUUID } from 'node:crypto'
import kafkajs from 'kafkajs'
import type { Span } from '@sieve/core'
import { encodeSpanRecord } from '../src/queue/spanRecord.js'
import { openKafkaQueue, type KafkaSettings } from '../src/queue/kafkaQueue.js'

/**
 * Produce throughput to one broker: kafkajs alone (the baseline: pre-encoded records, the same
 * compression and acks, requests of 1,000 records, 4 in flight) and Sieve's KafkaSpanQueue fed by
 * concurrent publish() calls of `perCall` spans, as an OTLP exporter's requests arrive.
 */
export function kafkaSettings(brokers: string[], partitions = 6): KafkaSettings {
  const id = randomUUID().slice(0, 8)
  return {
    brokers,
    clientId: 'sieve-bench',
    spansTopic: `bench-spans-${id}`,
    scoresTopic: `bench-scores-${id}`,
    deadLetterTopic: `bench-spans-${id}.dead-letter`,
    partitions,
    replicationFactor: 1,
  }
}

export async function rawProduceSpansPerSecond(kafka: KafkaSettings, spans: Span[]): Promise<number> {
  const client = new kafkajs.Kafka({ clientId: 'bench-raw', brokers: kafka.brokers, logLevel: kafkajs.logLevel.NOTHING })
  const admin = client.admin()
  await admin.connect()
  const topic = `${kafka.spansTopic}-raw`
  await admin.createTopics({ topics: [{ topic, numPartitions: kafka.partitions }], waitForLeaders: true })
  await admin.disconnect()
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const messages = spans.map((s) => ({ key: s.traceId, value: encodeSpanRecord(s) }))
  const started = performance.now()
  const chunk = 1000
  const inFlight = 4
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < messages.length) {
        const slice = messages.slice(next, (next += chunk))
        await producer.send({ topic, acks: -1, compression: kafkajs.CompressionTypes.Snappy, messages: slice })
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  await producer.disconnect()
  return spans.length / seconds
}

export async function queuePublishSpansPerSecond(kafka: KafkaSettings, spans: Span[], perCall = 100, concurrency = 16): Promise<number> {
  const queue = await openKafkaQueue({ kafka })
  await queue.publish(spans.slice(0, 10)) // connect before the clock starts
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < spans.length) {
        const slice = spans.slice(next, (next += perCall))
        await queue.publish(slice)
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  await queue.close()
  return spans.length / seconds
}
