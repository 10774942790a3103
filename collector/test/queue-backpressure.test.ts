import assert from 'node:assert/strict'
import { request } from 'node:http'
import { describe, test } from 'node:test'
import { InProcessQueue } from '@sieve/queue'
import { startReceiver } from './support/receiver-server.js'

function otlpJson(count: number, seed: number): string {
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: seed.toString(16).padStart(32, '0'),
    spanId: (i + 1).toString(16).padStart(16, '0'),
    name: `s${i}`,
    startTimeUnixNano: '1760000000000000000',
    endTimeUnixNano: '1760000000000000001',
  }))
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] })
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

/** A queue whose storing group takes its first batch and holds it until `release()`. */
async function heldQueue(options: ConstructorParameters<typeof InProcessQueue>[0]): Promise<{ queue: InProcessQueue; release: () => void }> {
  const queue = new InProcessQueue({ ...options, gates: ['store'] })
  let release!: () => void
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  await queue.subscribe({ group: 'store', onBatch: () => held })
  return { queue, release }
}

const untilDepth = async (queue: InProcessQueue, depth: number) => {
  while (queue.depth() < depth) await new Promise((resolve) => setTimeout(resolve, 5))
}

describe('in-process queue behind the OTLP receiver', () => {
  test('a full queue answers 429 with Retry-After, and takes spans again once drained', async () => {
    const { queue, release } = await heldQueue({ capacity: 10, lingerMs: 0 })
    const receiver = await startReceiver({ queue })
    try {
      const first = post(receiver.url, otlpJson(8, 1))
      await untilDepth(queue, 8)
      const refused = await post(receiver.url, otlpJson(5, 2))
      assert.equal(refused.status, 429)
      assert.ok(Number(refused.headers.get('retry-after')) > 0)
      release()
      assert.equal((await first).status, 200)
      assert.equal((await post(receiver.url, otlpJson(5, 3))).status, 200)
    } finally {
      await receiver.close()
      await queue.close()
    }
  })

  test('large spans fill the queue by their bytes: past capacityBytes a request is shed with 429, whatever its span count', async () => {
    const first = otlpJson(2, 1)
    // Two spans, of which the queue may hold the bytes of one request and a half: far below its spans bound.
    const { queue, release } = await heldQueue({ capacity: 1000, capacityBytes: Math.round(first.length * 1.5), lingerMs: 0 })
    const receiver = await startReceiver({ queue })
    try {
      const accepted = post(receiver.url, first)
      await untilDepth(queue, 2)
      assert.equal(queue.bytes(), first.length, 'the spans weigh what their request body did')
      assert.equal(queue.saturated(), undefined, 'bytes left')
      const refused = await post(receiver.url, otlpJson(2, 2))
      assert.equal(refused.status, 429)
      assert.equal(refused.headers.get('retry-after'), '1')
      assert.match(JSON.stringify(await refused.json()), new RegExp(`holds ${first.length} of ${Math.round(first.length * 1.5)} bytes of spans`))
      release()
      assert.equal((await accepted).status, 200)
      assert.equal(queue.bytes(), 0)
      assert.equal((await post(receiver.url, otlpJson(2, 3))).status, 200)
    } finally {
      await receiver.close()
      await queue.close()
    }
  })

  test('while storing keeps failing the sender gets 503, and the spans are stored once storage is back', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 5, gateAttempts: 2, gates: ['store'] })
    let failing = true
    const stored: string[] = []
    await queue.subscribe({
      group: 'store',
      onBatch: async (batch) => {
        if (failing) throw new Error('storage unreachable')
        stored.push(...batch.map((q) => q.span.spanId))
      },
    })
    const receiver = await startReceiver({ queue })
    try {
      const res = await post(receiver.url, otlpJson(2, 4))
      assert.equal(res.status, 503)
      assert.ok(res.headers.get('retry-after'))
      failing = false
      await queue.close()
      assert.deepEqual(stored, ['0000000000000001', '0000000000000002'])
    } finally {
      await receiver.close()
    }
  })

  test('past the bytes in flight a request is answered 429 with Retry-After before its body is sent, and the next one is taken', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, gates: ['store'] })
    await queue.subscribe({ group: 'store', onBatch: async () => {} })
    const receiver = await startReceiver({ queue, maxBytesInFlight: 4096 })
    try {
      // A sender that declared 3,000 bytes and has sent 10 so far holds its room meanwhile.
      const slow = request(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': 3000 } })
      const slowAnswer = new Promise<number>((resolve, reject) => {
        slow.on('response', (res) => {
          res.resume()
          resolve(res.statusCode!)
        })
        slow.on('error', reject)
      })
      slow.write(' '.repeat(10))
      await new Promise((resolve) => setTimeout(resolve, 100))
      const body = otlpJson(20, 1)
      assert.ok(body.length > 1096, 'does not fit beside the slow one')
      const refused = await post(receiver.url, body)
      assert.equal(refused.status, 429)
      assert.equal(refused.headers.get('retry-after'), '1')
      assert.match(await refused.text(), /busy/)
      assert.match(await receiver.metrics.registry.metrics(), /^sieve_otlp_requests_shed_total\{reason="bytes_in_flight"\} 1$/m)
      assert.equal((await post(receiver.url, otlpJson(1, 2))).status, 200, 'a body that fits is taken')
      slow.end(' '.repeat(2990))
      assert.equal(await slowAnswer, 400, 'the slow one is read through (it is no export request)')
      assert.equal((await post(receiver.url, body)).status, 200, 'its room is given back')
    } finally {
      await receiver.close()
      await queue.close()
    }
  })

  test('while the oldest queued span waits past the bound, requests are answered 429 before they are read', async () => {
    // The first batch is taken and held; what comes after it waits in the queue.
    const { queue, release } = await heldQueue({ lingerMs: 0, maxWaitMs: 200 })
    const receiver = await startReceiver({ queue })
    try {
      const first = post(receiver.url, otlpJson(2, 1))
      await untilDepth(queue, 2)
      const second = post(receiver.url, otlpJson(2, 2))
      await untilDepth(queue, 4)
      await new Promise((resolve) => setTimeout(resolve, 250))
      const refused = await post(receiver.url, otlpJson(2, 3))
      assert.equal(refused.status, 429)
      assert.ok(Number(refused.headers.get('retry-after')) > 0)
      assert.match(await refused.text(), /queue is behind: spans wait \d+ ms in the queue, over 200 ms/)
      assert.match(await receiver.metrics.registry.metrics(), /^sieve_otlp_requests_shed_total\{reason="queue_wait"\} 1$/m)
      release()
      assert.deepEqual([(await first).status, (await second).status], [200, 200])
      assert.equal((await post(receiver.url, otlpJson(2, 4))).status, 200, 'taken again once the queue moves')
    } finally {
      await receiver.close()
      await queue.close()
    }
  })
})
