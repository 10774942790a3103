import kafkajs from 'kafkajs'
import type { Span } from '@sieve/core'
import { encodeSpanRecord } from '../src/queue/span-record.js'

/**
 * The baseline for the Kafka benchmark: kafkajs alone producing the same spans to the same
 * broker, records encoded beforehand, with the collector's settings (idempotent, acks from all
 * replicas, Snappy, key = trace id), 1,000 records a request, 4 requests queued.
 */
export async function rawProduceSpansPerSecond(brokers: string[], topic: string, partitions: number, spans: Span[]): Promise<number> {
  const client = new kafkajs.Kafka({ clientId: 'bench-raw', brokers, logLevel: kafkajs.logLevel.NOTHING })
  const admin = client.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const messages = spans.map((s) => ({ key: s.traceId, value: encodeSpanRecord(s) }))
  const started = performance.now()
  const chunk = 1000
  let next = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
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
