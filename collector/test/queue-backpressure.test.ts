import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { InProcessQueue } from '@sieve/queue'
import { startReceiver } from './support/receiver-server.js'

function otlpJson(count: number, seed: number): string {
  const spans = Array.from({ length: count }, (_, i) => ({
    traceId: seed.toString(16).padStart(32, '0'), spanId: (i + 1).toString(16).padStart(16, '0'), name: `s${i}`,
    startTimeUnixNano: '1760000000000000000', endTimeUnixNano: '1760000000000000001',
  }))
  return JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 't' }, spans }] }] })
}

const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })

describe('in-process queue behind the OTLP receiver', () => {
  test('a full queue answers 429 with Retry-After, and takes spans again once drained', async () => {
    const queue = new InProcessQueue({ capacity: 10, lingerMs: 0 })
    let release!: () => void
    const held = new Promise<void>((resolve) => { release = resolve })
    await queue.subscribe({ group: 'store', gatesPublish: true, onBatch: () => held })
    const receiver = await startReceiver({ queue })
    try {
      const first = post(receiver.url, otlpJson(8, 1))
      while (queue.depth() < 8) await new Promise((resolve) => setTimeout(resolve, 5))
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

  test('while storing keeps failing the sender gets 503, and the spans are stored once storage is back', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 5, gateAttempts: 2 })
    let failing = true
    const stored: string[] = []
    await queue.subscribe({
      group: 'store', gatesPublish: true,
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
})
