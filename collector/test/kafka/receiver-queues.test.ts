import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import type { SpanQueue } from '@sieve/core'
import { InProcessQueue, openKafkaQueue } from '@sieve/queue'
import { sharedBrokers } from '@sieve/testkit'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { otelSpans } from '@sieve/testkit/otlp'
import { startReceiver, type ReceiverServer } from '../support/receiver-server.js'

/*
 * The receiver reads what each queue states (durability, protobuf forwarding, saturation) and never
 * which queue it is: the same requests get the same answers from both, though with Kafka a protobuf
 * request is scanned and forwarded and with the embedded queue it is decoded and gated.
 */

let release: () => Promise<void>
const queues: SpanQueue[] = []
const receivers: ReceiverServer[] = []

before(async () => {
  const shared = await sharedBrokers()
  release = shared.release
  const embedded = new InProcessQueue({ lingerMs: 0, gates: ['store'] })
  await embedded.subscribe({ group: 'store', onBatch: async () => {} })
  queues.push(embedded, await openKafkaQueue({ kafka: uniqueKafkaSettings(shared.brokers, 1) }))
  for (const queue of queues) receivers.push(await startReceiver({ queue }))
})
after(async () => {
  for (const receiver of receivers) await receiver.close()
  for (const queue of queues) await queue.close()
  await release?.()
})

async function answers(contentType: string, body: Uint8Array): Promise<{ status: number; body: string }[]> {
  return Promise.all(
    receivers.map(async ({ url }) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': contentType }, body })
      return { status: res.status, body: Buffer.from(await res.arrayBuffer()).toString('base64') }
    }),
  )
}

test('each queue states its capabilities', () => {
  assert.deepEqual(
    queues.map((q) => q.capabilities),
    [
      { durability: 'handled', forwardsProtobuf: false },
      { durability: 'acknowledged', forwardsProtobuf: true },
    ],
  )
})

test('a protobuf request with a bad span, an all-bad one and a JSON one are answered alike by both queues', async () => {
  const spans = await otelSpans()
  const bad = Object.create(spans[0]!, { spanContext: { value: () => ({ ...spans[0]!.spanContext(), spanId: 'ff' }) } })
  const requests: [string, Uint8Array][] = [
    ['application/x-protobuf', ProtobufTraceSerializer.serializeRequest(spans)!],
    ['application/x-protobuf', ProtobufTraceSerializer.serializeRequest([bad, ...spans.slice(1)])!],
    ['application/x-protobuf', ProtobufTraceSerializer.serializeRequest([bad])!],
    ['application/json', Buffer.from(JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: '01', spanId: '02', name: 'x' }] }] }] }))],
  ]
  const statuses: number[] = []
  for (const [contentType, body] of requests) {
    const [embedded, kafka] = await answers(contentType, body)
    assert.deepEqual(kafka, embedded, `${contentType} request ${statuses.length}`)
    statuses.push(embedded!.status)
  }
  assert.deepEqual(statuses, [200, 200, 400, 400])
})
