import { createRequire } from 'node:module'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import type { SpanRecord } from '@sieve/queue'
import { processCpuSeconds } from '@sieve/testkit'

/** What one baseline produce request holds at most: what 1,000 version-1 records of the benchmark spans came to. */
export const REQUEST_BYTES = 1.5 * 2 ** 20
/** Produce requests queued at once. */
const IN_FLIGHT = 4

export interface ProduceRun {
  spansPerSecond: number
  /** CPU of this process, every thread (a native client's own threads too), from the first send to the last acknowledgement. */
  cpuMsPer1000Spans: number
}

type Message = { key: string; value: Buffer }

/** The records as sends of up to `sendBytes`, IN_FLIGHT of them queued at a time; spans/s and CPU of the sending alone. */
async function produceTimed(records: SpanRecord[], sendBytes: number, send: (messages: Message[]) => Promise<unknown>): Promise<ProduceRun> {
  const requests: Message[][] = [[]]
  let bytes = 0
  for (const { key, value } of records) {
    if (bytes + value.length > sendBytes && requests.at(-1)!.length) {
      requests.push([])
      bytes = 0
    }
    requests.at(-1)!.push({ key, value })
    bytes += value.length
  }
  const spans = records.reduce((n, r) => n + r.spans, 0)
  const cpu = processCpuSeconds()
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < requests.length) await send(requests[next++]!)
    }),
  )
  const seconds = (performance.now() - started) / 1000
  return { spansPerSecond: spans / seconds, cpuMsPer1000Spans: ((processCpuSeconds() - cpu) * 1e6) / spans }
}

/**
 * The baseline for the Kafka benchmark: kafkajs alone producing the very records the collector
 * produces (same layout, same bytes, encoded beforehand) to the same broker, with the collector's
 * settings (idempotent, acks from all replicas, Snappy, key = trace id), 1.5 MiB a request,
 * 4 requests queued.
 */
export async function rawProduce(brokers: string[], topic: string, partitions: number, records: SpanRecord[], sendBytes = REQUEST_BYTES): Promise<ProduceRun> {
  const client = new kafkajs.Kafka({ clientId: 'bench-raw', brokers, logLevel: kafkajs.logLevel.NOTHING })
  const admin = client.admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  const producer = client.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const run = await produceTimed(records, sendBytes, (messages) => producer.send({ topic, acks: -1, compression: kafkajs.CompressionTypes.Snappy, messages }))
  await producer.disconnect()
  return run
}

/** The part of `@confluentinc/kafka-javascript`'s KafkaJS-compatible API the bench uses. */
interface RdKafkaJS {
  Kafka: new (config: {
    kafkaJS: { clientId: string; brokers: string[]; logLevel: number }
  }) => {
    producer(config: { kafkaJS: { idempotent: boolean; acks: number; compression: string } }): {
      connect(): Promise<void>
      send(request: { topic: string; messages: Message[] }): Promise<unknown>
      disconnect(): Promise<void>
    }
  }
  CompressionTypes: { SNAPPY: string }
  logLevel: { NOTHING: number }
}

const RDKAFKA = '@confluentinc/kafka-javascript'
export const RDKAFKA_INSTALL = `install it outside the repository (CKJS_LINKING=dynamic npm install ${RDKAFKA}, with zlib1g-dev libssl-dev libzstd-dev libsasl2-dev: it builds librdkafka) and set BENCH_RDKAFKA to that directory`

/**
 * librdkafka's KafkaJS-compatible API, from BENCH_RDKAFKA (a directory it is installed in) or the
 * repository's node_modules; undefined where it is in neither. No package depends on it: with no
 * prebuilt binary to download its install builds librdkafka, and by default (static linking) the
 * build downloads the sources of zlib, OpenSSL, zstd and curl, which an offline machine cannot.
 */
export async function loadRdKafka(): Promise<RdKafkaJS | undefined> {
  const where = process.env.BENCH_RDKAFKA ? join(process.env.BENCH_RDKAFKA, '_') : import.meta.url
  try {
    return (createRequire(where)(RDKAFKA) as { KafkaJS: RdKafkaJS }).KafkaJS
  } catch {
    return undefined
  }
}

/**
 * rawProduce's records, topic layout and settings through librdkafka (idempotent, acks=all,
 * Snappy; librdkafka's own batching, linger and in-flight defaults). The topic is created with
 * kafkajs' admin so both clients produce to the same layout.
 */
export async function rdkafkaProduce(
  rdkafka: RdKafkaJS,
  brokers: string[],
  topic: string,
  partitions: number,
  records: SpanRecord[],
  sendBytes = REQUEST_BYTES,
): Promise<ProduceRun> {
  const admin = new kafkajs.Kafka({ clientId: 'bench-rdkafka-admin', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true })
  await admin.disconnect()
  const client = new rdkafka.Kafka({ kafkaJS: { clientId: 'bench-rdkafka', brokers, logLevel: rdkafka.logLevel.NOTHING } })
  const producer = client.producer({ kafkaJS: { idempotent: true, acks: -1, compression: rdkafka.CompressionTypes.SNAPPY } })
  await producer.connect()
  const run = await produceTimed(records, sendBytes, (messages) => producer.send({ topic, messages }))
  await producer.disconnect()
  return run
}
