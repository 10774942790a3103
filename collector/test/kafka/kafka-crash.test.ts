import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { createStorage } from '@sieve/core'
import { scanProtobufRequest } from '@sieve/otlp'
import { openKafkaQueue } from '@sieve/queue'
import { countRows, makeTraces, roleMetricsUrl, sharedBrokers, spawnSieve, until, type SieveProcess } from '@sieve/testkit'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { protobufRequest } from '@sieve/testkit/otlp'

let brokers: string[]
let release: () => Promise<void>
let dataDir: string
before(async () => {
  ;({ brokers, release } = await sharedBrokers())
  dataDir = await mkdtemp(join(tmpdir(), 'sieve-crash-'))
})
after(async () => {
  await release?.()
  await rm(dataDir, { recursive: true, force: true })
})

const sieve = (command: string, env: Record<string, string>) => spawnSieve(command, { SIEVE_DATA_DIR: dataDir, ...env })

async function startIngester(env: Record<string, string>): Promise<SieveProcess & { metrics: string }> {
  const run = sieve('ingester', env)
  return { ...run, metrics: await roleMetricsUrl(run, 'ingester') }
}

async function handled(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text()
  return Number(/^sieve_kafka_handled_spans_total\{group="ingester"\} (\d+)/m.exec(text)?.[1] ?? 0)
}

/**
 * Version 1 records (one span each, as `queue.publish` of Span objects makes them) or version 2
 * (one per trace and request, as the collector makes them of OTLP protobuf).
 */
async function crashAndRestart(records: 'span' | 'trace', project: string): Promise<void> {
  const kafka = uniqueKafkaSettings(brokers)
  const env = {
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_SPANS_TOPIC: kafka.spansTopic,
    KAFKA_DEAD_LETTER_TOPIC: kafka.deadLetterTopic,
    KAFKA_TOPIC_PARTITIONS: String(kafka.partitions),
  }
  const migrate = sieve('migrate', env)
  const [code] = await once(migrate.child, 'exit')
  assert.equal(code, 0, migrate.output())

  const spans = makeTraces(10_000, 5).map((span) => ({ ...span, projectId: project }))
  const queue = await openKafkaQueue({ kafka })
  // 500 spans a request: 100 whole traces, so version 2 makes 10,000 records in all.
  const publish = async (from: number, to: number) => {
    for (let i = from; i < to; i += 500) {
      const chunk = spans.slice(i, Math.min(to, i + 500))
      await (records === 'span' ? queue.publish(chunk) : queue.publishScanned(scanProtobufRequest(protobufRequest(chunk), project)))
    }
  }
  const recordCount = records === 'span' ? spans.length : 10_000
  await publish(0, 15_000)

  const first = await startIngester(env)
  const rest = publish(15_000, spans.length)
  await until('the first ingester to store 10,000 spans', async () => (await handled(first.metrics)) >= 10_000)
  first.child.kill('SIGKILL')
  await once(first.child, 'exit')
  await rest
  await queue.close()

  const second = await startIngester(env)
  const admin = new kafkajs.Kafka({ clientId: 'crash-check', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  let committed = ''
  await until(
    'every offset committed',
    async () => {
      const [offsets] = await admin.fetchOffsets({ groupId: 'ingester', topics: [kafka.spansTopic] })
      committed = offsets!.partitions.map((p) => `${p.partition}:${p.offset}`).join(' ')
      return offsets!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0) === recordCount
    },
    180_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}; committed ${committed}; handled ${first.output()}\n---\n${second.output()}`)
  })
  await admin.disconnect()
  second.child.kill('SIGTERM')
  await once(second.child, 'exit')

  const storage = await createStorage({ kind: 'embedded', path: join(dataDir, 'clickhouse'), database: 'sieve' })
  try {
    assert.equal(await countRows(storage, `SELECT count() FROM spans FINAL WHERE project_id = '${project}'`), 50_000)
    assert.equal(await countRows(storage, `SELECT uniqExact(project_id, trace_id, span_id) FROM spans WHERE project_id = '${project}'`), 50_000)
    // Without FINAL: the replayed records' spans that the first ingester had stored were not inserted again.
    assert.equal(await countRows(storage, `SELECT count() FROM spans WHERE project_id = '${project}'`), 50_000)
    assert.equal(await countRows(storage, `SELECT count() FROM traces FINAL WHERE project_id = '${project}'`), 10_000)
    assert.equal(await countRows(storage, `SELECT sum(span_count) FROM traces FINAL WHERE project_id = '${project}'`), 50_000)
  } finally {
    await storage.close()
  }
}

test('kill -9 of the ingester mid-stream of 50,000 spans, then a restart: exactly 50,000 span rows stored, counted once', () =>
  crashAndRestart('span', 'crash-v1'))

test('the same with version 2 records, one per trace: exactly 50,000 spans stored, counted once', () => crashAndRestart('trace', 'crash-v2'))
