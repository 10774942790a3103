import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { QueueFullError, QueueUnavailableError, type QueuedSpan, type Span } from '@sieve/core'
import { InProcessQueue } from '@sieve/collector'

const span = (spanId: string): Span => ({
  projectId: 'p', traceId: 'a'.repeat(32), spanId, parentSpanId: '', traceState: '', name: 'n', kind: 'INTERNAL',
  startTimeUnixNano: '1', endTimeUnixNano: '2', status: { code: 'UNSET', message: '' }, flags: 0, serviceName: 's',
  scope: { name: '', version: '', attributes: {} }, attributes: {}, resource: {}, events: [], links: [],
  droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
})
const spans = (prefix: string, n: number): Span[] => Array.from({ length: n }, (_, i) => span(`${prefix}${i}`))
const ids = (batch: QueuedSpan[]): string[] => batch.map((q) => q.span.spanId)

/** A handler that holds each batch until released, to make concurrency explicit. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => { open = resolve })
  return { open, opened }
}

describe('in-process queue', () => {
  test('spans of requests arriving while the handler is busy reach it as one batch', async () => {
    const queue = new InProcessQueue({ lingerMs: 0 })
    const batches: string[][] = []
    const first = gate()
    await queue.subscribe({
      group: 'g', gatesPublish: true,
      onBatch: async (batch) => {
        batches.push(ids(batch))
        if (batches.length === 1) await first.opened
      },
    })
    const p1 = queue.publish(spans('a', 2))
    const p2 = queue.publish(spans('b', 3))
    const p3 = queue.publish(spans('c', 1))
    first.open()
    await Promise.all([p1, p2, p3])
    assert.deepEqual(batches, [['a0', 'a1'], ['b0', 'b1', 'b2', 'c0']])
  })

  test('a batch never exceeds maxBatchSpans unless one publish alone is larger', async () => {
    const queue = new InProcessQueue({ lingerMs: 50, maxBatchSpans: 4 })
    const sizes: number[] = []
    await queue.subscribe({ group: 'g', gatesPublish: true, onBatch: async (b) => { sizes.push(b.length) } })
    await Promise.all([queue.publish(spans('a', 3)), queue.publish(spans('b', 3)), queue.publish(spans('c', 6))])
    assert.deepEqual(sizes, [3, 3, 6])
  })

  // The linger is ten minutes: without the fix this test runs into its timeout.
  test('a batch that fills up while lingering goes at once instead of waiting out the linger', { timeout: 30_000 }, async () => {
    const queue = new InProcessQueue({ lingerMs: 600_000, maxBatchSpans: 4 })
    const sizes: number[] = []
    await queue.subscribe({ group: 'g', gatesPublish: true, onBatch: async (b) => { sizes.push(b.length) } })
    await Promise.all([queue.publish(spans('a', 2)), queue.publish(spans('b', 2))])
    assert.deepEqual(sizes, [4])
  })

  test('publish waits for the gating group and not for the others', async () => {
    const queue = new InProcessQueue({ lingerMs: 0 })
    const stored = gate()
    const slow = gate()
    let handled = false
    await queue.subscribe({ group: 'store', gatesPublish: true, onBatch: async () => { await stored.opened; handled = true } })
    await queue.subscribe({ group: 'score', onBatch: () => slow.opened })
    const published = queue.publish(spans('a', 1))
    let settled = false
    void published.then(() => { settled = true })
    await new Promise((r) => setImmediate(r))
    assert.equal(settled, false)
    stored.open()
    await published
    assert.equal(handled, true)
    assert.equal(queue.depth(), 1, 'the slow group still holds the span')
    slow.open()
  })

  test('every group gets every span', async () => {
    const queue = new InProcessQueue({ lingerMs: 0 })
    const seen: Record<string, string[]> = { a: [], b: [] }
    for (const group of ['a', 'b']) {
      await queue.subscribe({ group, gatesPublish: true, onBatch: async (batch) => { seen[group]!.push(...ids(batch)) } })
    }
    await queue.publish(spans('x', 3))
    assert.deepEqual(seen, { a: ['x0', 'x1', 'x2'], b: ['x0', 'x1', 'x2'] })
  })

  test('a full queue refuses with QueueFullError and takes spans again once drained', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, capacity: 4 })
    const held = gate()
    await queue.subscribe({ group: 'g', gatesPublish: true, onBatch: () => held.opened })
    const accepted = queue.publish(spans('a', 3))
    await assert.rejects(queue.publish(spans('b', 2)), (err) => err instanceof QueueFullError && err.retryAfterSeconds > 0)
    held.open()
    await accepted
    await queue.publish(spans('c', 4))
  })

  test('a failed batch is delivered again, whole, until it succeeds', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gateAttempts: 10 })
    const attempts: string[][] = []
    await queue.subscribe({
      group: 'g', gatesPublish: true,
      onBatch: async (batch) => {
        attempts.push(ids(batch))
        if (attempts.length < 3) throw new Error('storage down')
      },
    })
    await queue.publish(spans('a', 2))
    assert.deepEqual(attempts, [['a0', 'a1'], ['a0', 'a1'], ['a0', 'a1']])
    assert.equal(queue.depth(), 0)
  })

  test('a gated publish gives up with QueueUnavailableError while the spans stay queued', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gateAttempts: 2 })
    let fail = true
    const delivered: string[] = []
    await queue.subscribe({
      group: 'g', gatesPublish: true,
      onBatch: async (batch) => {
        if (fail) throw new Error('storage down')
        delivered.push(...ids(batch))
      },
    })
    await assert.rejects(queue.publish(spans('a', 1)), QueueUnavailableError)
    assert.equal(queue.depth(), 1)
    fail = false
    await queue.close()
    assert.deepEqual(delivered, ['a0'])
  })

  test('close drains what is queued and then refuses new spans', async () => {
    const queue = new InProcessQueue({ lingerMs: 20 })
    const delivered: string[] = []
    await queue.subscribe({ group: 'g', onBatch: async (batch) => { delivered.push(...ids(batch)) } })
    await queue.publish(spans('a', 2))
    assert.deepEqual(delivered, [], 'without a gating group publish returns before delivery')
    await queue.close()
    assert.deepEqual(delivered, ['a0', 'a1'])
    await assert.rejects(queue.publish(spans('b', 1)), QueueUnavailableError)
  })
})
