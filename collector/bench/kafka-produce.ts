import kafkajs from 'kafkajs'
import type { SpanRecord } from '@sieve/queue'

/** What one baseline produce request holds at most: what 1,000 version-1 records of the benchmark spans came to. */
const REQUEST_BYTES = 1.5 * 2 ** 20

/**
 * The baseline for the Kafka benchmark: kafkajs alone producing the very records the collector
 * produces (same layout, same bytes, encoded beforehand) to the same broker, with the collector's
 * settings (idempotent, acks from all replicas, Snappy, key = trace id), 1.5 MiB a request,
 * 4 requests queued. Returns spans/s.
 */
export async function rawProduceSpansPerSecond(brokers: string[], topic: string, partitions: number, records: SpanRecord[]): Promise<number> {
  const client = new kafkajs.Kafka({ clientId: 'bench-raw', brokers, logLevel: kafkajs.logLevel.NOTHING })
  const admin = client.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const requests: SpanRecord[][] = [[]]
  let bytes = 0
  for (const record of records) {
    if (bytes + record.value.length > REQUEST_BYTES && requests.at(-1)!.length) {
      requests.push([])
      bytes = 0
    }
    requests.at(-1)!.push(record)
    bytes += record.value.length
  }
  const spans = records.reduce((n, r) => n + r.spans, 0)
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < requests.length) {
        const messages = requests[next++]!
        await producer.send({ topic, acks: -1, compression: kafkajs.CompressionTypes.Snappy, messages })
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  await producer.disconnect()
  return spans / seconds
}
