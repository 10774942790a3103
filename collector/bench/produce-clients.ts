/**
 * `npm run bench:ingest -- --kafka --clients`: the produce step alone, kafkajs against librdkafka
 * (`@confluentinc/kafka-javascript`, its KafkaJS-compatible API), on the records the collector makes
 * of the Kafka benchmark's requests: same records, broker, partitions and settings (idempotent,
 * acks=all, Snappy, 1.5 MiB sends, 4 queued), a topic per client and round, the order alternating
 * each round; each run is checked to have put every record in its topic. CPU is this process's,
 * every thread (librdkafka's included), from the first send to the last acknowledgement.
 * BENCH_REQUESTS (default 160) requests of 512 spans, BENCH_ROUNDS
 * (default 5). librdkafka is no dependency of the repository (its install builds it from source):
 * where it is not installed, one line says how and kafkajs runs alone.
 */
import { randomUUID } from 'node:crypto'
import { loadavg } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import kafkajs from 'kafkajs'
import { scanProtobufRequest } from '@sieve/otlp'
import { encodeTraceRecords } from '@sieve/queue'
import { protobufBatch } from '@sieve/testkit/bench'
import { median, startPrivateBroker } from '@sieve/testkit'
import { loadRdKafka, RDKAFKA_INSTALL, REQUEST_BYTES, rawProduce, rdkafkaProduce, type ProduceRun } from './kafka-produce.js'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 160)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const SPANS_PER_REQUEST = 512
const PARTITIONS = 6
// BENCH_SEND_KIB: smaller sends, nearer what a collector under light load produces at a time.
const SEND_BYTES = process.env.BENCH_SEND_KIB ? Number(process.env.BENCH_SEND_KIB) * 1024 : REQUEST_BYTES

const rdkafka = await loadRdKafka()
if (!rdkafka) console.log(`--clients: librdkafka skipped, @confluentinc/kafka-javascript is not installed; to compare: ${RDKAFKA_INSTALL}`)
const privateBroker = process.env.KAFKA_BROKERS ? undefined : await startPrivateBroker()
const brokers = privateBroker?.brokers ?? process.env.KAFKA_BROKERS!.split(',')
const admin = new kafkajs.Kafka({ clientId: 'bench-clients', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
await admin.connect()

type Client = 'kafkajs' | 'librdkafka'
const runs: Record<Client, ProduceRun[]> = { kafkajs: [], librdkafka: [] }
const loads: number[] = []
const recordsOf = (requests: number) =>
  Array.from({ length: requests }, () => protobufBatch(SPANS_PER_REQUEST)).flatMap((p) => encodeTraceRecords(scanProtobufRequest(p, 'default')))

async function produce(client: Client, topic: string, records: ReturnType<typeof recordsOf>): Promise<ProduceRun> {
  const run =
    client === 'kafkajs'
      ? await rawProduce(brokers, topic, PARTITIONS, records, SEND_BYTES)
      : await rdkafkaProduce(rdkafka!, brokers, topic, PARTITIONS, records, SEND_BYTES)
  const stored = (await admin.fetchTopicOffsets(topic)).reduce((n, p) => n + Number(p.high), 0)
  if (stored !== records.length) throw new Error(`${client}: ${stored} of ${records.length} records in ${topic}`)
  return run
}

// Every round's records are made first and their garbage collected once: making them between runs
// charged the collection to whichever run came next, and a forced collection between runs flushed
// the idle client's compiled code (kafkajs then cost 2-3x as much in the run after). Then one
// uncounted run per client pays for JIT and loading the native library.
console.log(`generating ${ROUNDS} x ${REQUESTS} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans...`)
const rounds = Array.from({ length: ROUNDS }, () => recordsOf(REQUESTS))
const warmUp = recordsOf(32)
setFlagsFromString('--expose-gc')
;(runInNewContext('gc') as () => void)()
for (const client of rdkafka ? (['kafkajs', 'librdkafka'] as const) : (['kafkajs'] as const))
  await produce(client, `bench-warm-up-${randomUUID().slice(0, 8)}`, warmUp)

for (let round = 1; round <= ROUNDS; round++) {
  const records = rounds[round - 1]!
  const id = randomUUID().slice(0, 8)
  const order: Client[] = !rdkafka ? ['kafkajs'] : round % 2 ? ['kafkajs', 'librdkafka'] : ['librdkafka', 'kafkajs']
  loads.push(loadavg()[0]!)
  const line: string[] = []
  for (const client of order) {
    const run = await produce(client, `bench-${id}-${client}`, records)
    runs[client].push(run)
    line.push(`${client} ${Math.round(run.spansPerSecond)} spans/s, ${run.cpuMsPer1000Spans.toFixed(1)} CPU ms/1,000 spans`)
  }
  console.log(`round ${round} (load ${loads.at(-1)!.toFixed(1)}): ${line.join('; ')}`)
}
await admin.disconnect()
await privateBroker?.destroy()

const row = (client: Client) => {
  const spans = Math.round(median(runs[client].map((r) => r.spansPerSecond)))
  const cpu = median(runs[client].map((r) => r.cpuMsPer1000Spans))
  return `  ${client.padEnd(34)} ${String(spans).padStart(10)} ${cpu.toFixed(1).padStart(12)}`
}
console.log(`
Kafka produce, one client alone: ${REQUESTS} x ${SPANS_PER_REQUEST} spans a round (${runs.kafkajs.length} rounds${rdkafka ? ', order alternating' : ''}), ${PARTITIONS} partitions,
idempotent, acks=all, Snappy, sends of ${Math.round(SEND_BYTES / 1024)} KiB, 4 queued; load average ${loads.map((l) => l.toFixed(1)).join(', ')}; medians:
                                         spans/s   CPU ms per 1,000 spans (the process, every thread)
${row('kafkajs')}${rdkafka ? `\n${row('librdkafka')}` : ''}
`)
