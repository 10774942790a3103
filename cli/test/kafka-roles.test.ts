import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { randomBytes, randomUUID } from 'node:crypto'
import kafkajs from 'kafkajs'
import { decodeSpanRecords } from '@sieve/queue'
import { sharedBrokers, spawnSieve } from '@sieve/testkit'

const dataDir = mkdtempSync(join(tmpdir(), 'sieve-roles-'))
let brokers: string[]
let release: () => Promise<void>
before(async () => {
  ;({ brokers, release } = await sharedBrokers())
})
after(async () => {
  await release?.()
  rmSync(dataDir, { recursive: true, force: true })
})

const sieve = (command: string, env: Record<string, string>) => spawnSieve(command, { SIEVE_DATA_DIR: dataDir, KAFKA_BROKERS: '', ...env })

async function started(run: ReturnType<typeof sieve>, banner: RegExp): Promise<string> {
  while (!banner.test(run.output())) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}:\n${run.output()}`)
    await Promise.race([once(run.child.stdout!, 'data'), once(run.child, 'exit')])
  }
  return /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(run.output())?.[1] ?? ''
}

async function stop(run: ReturnType<typeof sieve>): Promise<void> {
  run.child.kill('SIGTERM')
  const [code] = await once(run.child, 'exit')
  assert.equal(code, 0, run.output())
}

const traceId = randomUUID().replaceAll('-', '')
const otlp = (name: string) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'roles' } }] },
        scopeSpans: [
          {
            spans: [
              { traceId, spanId: randomBytes(8).toString('hex'), name, startTimeUnixNano: '1744712660000000001', endTimeUnixNano: '1744712661000000002' },
            ],
          },
        ],
      },
    ],
  })

const topics = () => {
  const id = randomUUID().slice(0, 8)
  return { KAFKA_SPANS_TOPIC: `roles-${id}`, KAFKA_DEAD_LETTER_TOPIC: `roles-${id}.dead-letter`, KAFKA_TOPIC_PARTITIONS: '2' }
}

test('sieve collector and sieve ingester refuse to run without KAFKA_BROKERS, saying what to set', async () => {
  for (const role of ['collector', 'ingester']) {
    const run = sieve(role, {})
    const [code] = await once(run.child, 'exit')
    assert.equal(code, 2)
    assert.match(run.output(), new RegExp(`sieve ${role}: set KAFKA_BROKERS`))
  }
})

test('sieve collector produces what it accepts to the Kafka topic, keyed by trace id', async () => {
  const env = { KAFKA_BROKERS: brokers.join(','), ...topics() }
  const run = sieve('collector', env)
  const url = await started(run, /Sieve collector is up/)
  assert.match(run.output(), /Queue:\s+Kafka .* \(topic roles-/)
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: otlp('from the collector role') })
  assert.equal(res.status, 200)
  await stop(run)

  const consumer = new kafkajs.Kafka({ clientId: 'roles', brokers, logLevel: kafkajs.logLevel.NOTHING }).consumer({ groupId: 'roles-check' })
  await consumer.connect()
  await consumer.subscribe({ topic: env.KAFKA_SPANS_TOPIC, fromBeginning: true })
  const got = await new Promise<{ key: string; name: string }>((resolve) => {
    void consumer.run({ eachMessage: async ({ message }) => resolve({ key: String(message.key), name: decodeSpanRecords(message.value)[0]!.name }) })
  })
  await consumer.disconnect()
  assert.deepEqual(got, { key: traceId, name: 'from the collector role' })
})

test('sieve up with KAFKA_BROKERS runs collector and ingester over Kafka: a 200 span is readable back', async () => {
  const run = sieve('up', { KAFKA_BROKERS: brokers.join(','), ...topics() })
  const url = await started(run, /Sieve is up/)
  assert.match(run.output(), /Queue:\s+Kafka /)
  const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: otlp('through sieve up') })
  assert.equal(res.status, 200)
  let names: string[] = []
  for (let i = 0; i < 300 && names.length === 0; i++) {
    const read = await fetch(`${url}/api/traces/${traceId}`)
    if (read.status === 200) names = ((await read.json()) as { trace: { roots: { name: string }[] } }).trace.roots.map((s) => s.name)
    else await new Promise((r) => setTimeout(r, 100))
  }
  await stop(run)
  assert.deepEqual(names, ['through sieve up'])
})
