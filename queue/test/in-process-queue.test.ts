import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { QueueFullError, QueueUnavailableError, UnprocessableSpansError, type QueuedSpan, type Span } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'

const span = (spanId: string): Span => ({
  projectId: 'p',
  traceId: 'a'.repeat(32),
  spanId,
  parentSpanId: '',
  traceState: '',
  name: 'n',
  kind: 'INTERNAL',
  startTimeUnixNano: '1',
  endTimeUnixNano: '2',
  status: { code: 'UNSET', message: '' },
  flags: 0,
  serviceName: 's',
  scope: { name: '', version: '', attributes: {} },
  attributes: {},
  resource: {},
  events: [],
  links: [],
  droppedAttributesCount: 0,
  droppedEventsCount: 0,
  droppedLinksCount: 0,
})
const spans = (prefix: string, n: number): Span[] => Array.from({ length: n }, (_, i) => span(`${prefix}${i}`))
const ids = (batch: QueuedSpan[]): string[] => batch.map((q) => q.span.spanId)

/** A handler that holds each batch until released, to make concurrency explicit. */
function gate() {
  let open!: () => void
  const opened = new Promise<void>((resolve) => {
    open = resolve
  })
  return { open, opened }
}

describe('in-process queue', () => {
  test('spans of requests arriving while the handler is busy reach it as one batch', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, gates: ['g'] })
    const batches: string[][] = []
    const first = gate()
    await queue.subscribe({
      group: 'g',
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
    assert.deepEqual(batches, [
      ['a0', 'a1'],
      ['b0', 'b1', 'b2', 'c0'],
    ])
  })

  test('a batch never exceeds maxBatchSpans unless one publish alone is larger', async () => {
    const queue = new InProcessQueue({ lingerMs: 50, maxBatchSpans: 4, gates: ['g'] })
    const sizes: number[] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (b) => {
        sizes.push(b.length)
      },
    })
    await Promise.all([queue.publish(spans('a', 3)), queue.publish(spans('b', 3)), queue.publish(spans('c', 6))])
    assert.deepEqual(sizes, [3, 3, 6])
  })

  test('large spans make small batches: a batch never exceeds maxBatchBytes unless one publish alone is larger', async () => {
    const queue = new InProcessQueue({ lingerMs: 50, maxBatchSpans: 100, maxBatchBytes: 4000, gates: ['g'] })
    const sizes: number[] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (b) => {
        sizes.push(b.length)
      },
    })
    await Promise.all([
      queue.publish(spans('a', 2), 3000),
      queue.publish(spans('b', 1), 1000),
      queue.publish(spans('c', 2), 5000),
      queue.publish(spans('d', 9), 900),
    ])
    assert.deepEqual(sizes, [3, 2, 9])
  })

  // The linger is ten minutes: without the fix this test runs into its timeout.
  test('a batch that fills up while lingering goes at once instead of waiting out the linger', { timeout: 30_000 }, async () => {
    const queue = new InProcessQueue({ lingerMs: 600_000, maxBatchSpans: 4, gates: ['g'] })
    const sizes: number[] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (b) => {
        sizes.push(b.length)
      },
    })
    await Promise.all([queue.publish(spans('a', 2)), queue.publish(spans('b', 2))])
    assert.deepEqual(sizes, [4])
  })

  test('publish waits for the gating group and not for the others', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, gates: ['store'] })
    const stored = gate()
    const slow = gate()
    let handled = false
    await queue.subscribe({
      group: 'store',
      onBatch: async () => {
        await stored.opened
        handled = true
      },
    })
    await queue.subscribe({ group: 'score', onBatch: () => slow.opened })
    const published = queue.publish(spans('a', 1))
    let settled = false
    void published.then(() => {
      settled = true
    })
    await new Promise((r) => setImmediate(r))
    assert.equal(settled, false)
    stored.open()
    await published
    assert.equal(handled, true)
    assert.equal(queue.depth(), 1, 'the slow group still holds the span')
    slow.open()
  })

  test('every group gets every span', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, gates: ['a', 'b'] })
    const seen: Record<string, string[]> = { a: [], b: [] }
    for (const group of ['a', 'b']) {
      await queue.subscribe({
        group,
        onBatch: async (batch) => {
          seen[group]!.push(...ids(batch))
        },
      })
    }
    await queue.publish(spans('x', 3))
    assert.deepEqual(seen, { a: ['x0', 'x1', 'x2'], b: ['x0', 'x1', 'x2'] })
  })

  test('a full queue refuses with QueueFullError and takes spans again once drained', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, capacity: 4, gates: ['g'] })
    const held = gate()
    await queue.subscribe({ group: 'g', onBatch: () => held.opened })
    const accepted = queue.publish(spans('a', 3))
    await assert.rejects(queue.publish(spans('b', 2)), (err) => err instanceof QueueFullError && err.retryAfterSeconds > 0)
    held.open()
    await accepted
    await queue.publish(spans('c', 4))
  })

  test('counts the bytes its spans came in: full past capacityBytes, yet an empty queue takes a request larger than that', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, capacityBytes: 1000, gates: ['g'] })
    const held = gate()
    const batches: QueuedSpan[][] = []
    await queue.subscribe({
      group: 'g',
      onBatch: (batch) => {
        batches.push(batch)
        return held.opened
      },
    })
    const large = queue.publish(spans('a', 3), 3000)
    assert.deepEqual(
      batches[0]?.map((q) => q.bytes),
      [1000, 1000, 1000],
    )
    assert.equal(queue.bytes(), 3000)
    assert.match(queue.saturated()?.message ?? '', /holds 3000 of 1000 bytes/)
    await assert.rejects(queue.publish(spans('b', 1), 1), (err) => err instanceof QueueFullError)
    held.open()
    await large
    assert.equal(queue.bytes(), 0)
    assert.equal(queue.saturated(), undefined)
    await queue.publish(spans('c', 1), 900)
    await queue.close()
  })

  test('shed before it is full when what it holds would take a gating group past maxWaitMs at the pace of the batch in hand', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, maxWaitMs: 400, gates: ['g'] })
    const held = gate()
    await queue.subscribe({ group: 'g', onBatch: () => held.opened })
    const first = queue.publish(spans('a', 10), 1000)
    const second = queue.publish(spans('b', 10), 1000)
    assert.equal(queue.saturated(), undefined, 'nothing says yet how fast it stores')
    // 10 spans in hand for 250 ms: at most 0.04 a millisecond, so the 20 held take 500 ms or more,
    // though the oldest span not taken has waited 250 ms only.
    await new Promise((resolve) => setTimeout(resolve, 250))
    const saturated = queue.saturated()
    assert.equal(saturated?.reason, 'queue_wait')
    assert.match(saturated?.message ?? '', /^the spans queued take about \d+ ms to store at the recent pace, over 400 ms; retry later$/)
    held.open()
    await Promise.all([first, second])
    assert.equal(queue.saturated(), undefined, 'an empty queue takes requests')
    await queue.close()
  })

  test('until a gating group has stored a batch it takes one batch of 1 KiB spans at a time, and one body alone always', async () => {
    // maxBatchSpans 2: 2,048 bytes before the first batch is stored.
    const queue = new InProcessQueue({ lingerMs: 0, maxBatchSpans: 2, maxWaitMs: 60_000, gates: ['g'] })
    const held = gate()
    await queue.subscribe({ group: 'g', onBatch: () => held.opened })
    assert.equal(queue.saturated({ bytes: 5000, asking: 5000 }), undefined, 'a body alone, however large')
    assert.equal(queue.saturated({ bytes: 2000, asking: 1000 }), undefined, 'two bodies within one batch')
    const shed = queue.saturated({ bytes: 3000, asking: 1000 })
    assert.equal(shed?.reason, 'queue_wait', 'bodies beyond one batch, nothing stored yet')
    assert.match(
      shed?.message ?? '',
      /^storage has not stored a batch yet, so its pace is unknown: until then the queue takes 2048 bytes of spans at a time \(3000 held and coming\); retry later$/,
    )
    const first = queue.publish(spans('a', 2), 1500)
    assert.equal(queue.saturated({ bytes: 500, asking: 500 }), undefined, 'what is held and the body fit one batch')
    assert.equal(queue.saturated({ bytes: 600, asking: 600 })?.reason, 'queue_wait', 'a body beside spans held, past one batch')
    held.open()
    await first
    assert.equal(queue.saturated({ bytes: 3000, asking: 1000 }), undefined, 'a batch stored: its pace decides')
    await queue.close()
  })

  test('the pace of handled batches bounds what may still come in: the bodies being read count', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, maxWaitMs: 100, gates: ['g'] })
    // 1,000 bytes stored in 20 ms or more: at most 50 bytes a millisecond.
    await queue.subscribe({ group: 'g', onBatch: () => new Promise((resolve) => setTimeout(resolve, 20)) })
    await queue.publish(spans('a', 10), 1000)
    assert.equal(queue.saturated({ bytes: 1000, asking: 1000 }), undefined, 'a body stored in about 20 ms')
    assert.equal(queue.saturated({ bytes: 10_000, asking: 1000 })?.reason, 'queue_wait', 'bodies that take 200 ms or more')
    await queue.close()
  })

  test('a failing store is not taken for a slow one: its publishers get QueueUnavailableError, new requests are not shed for its pace', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, maxWaitMs: 50, gateAttempts: 1, retryInitialMs: 200, gates: ['g'] })
    let failing = true
    await queue.subscribe({
      group: 'g',
      onBatch: async () => {
        if (failing) throw new Error('storage is down')
      },
    })
    try {
      await assert.rejects(queue.publish(spans('a', 1), 100), (err) => err instanceof QueueUnavailableError)
      await new Promise((resolve) => setTimeout(resolve, 100))
      assert.equal(queue.saturated(), undefined)
      assert.match(queue.stalled() ?? '', /has failed/)
    } finally {
      failing = false
      await queue.close()
    }
  })

  test('a failed batch is delivered again, whole, until it succeeds', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gateAttempts: 10, gates: ['g'] })
    const attempts: string[][] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (batch) => {
        attempts.push(ids(batch))
        if (attempts.length < 3) throw new Error('storage down')
      },
    })
    await queue.publish(spans('a', 2))
    assert.deepEqual(attempts, [
      ['a0', 'a1'],
      ['a0', 'a1'],
      ['a0', 'a1'],
    ])
    assert.equal(queue.depth(), 0)
  })

  test('a gated publish gives up with QueueUnavailableError while the spans stay queued', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gateAttempts: 2, gates: ['g'] })
    let fail = true
    const delivered: string[] = []
    await queue.subscribe({
      group: 'g',
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

  test('a batch refused for its data is split: the rest handled, each refused span dead-lettered and reported to its publisher', async () => {
    const dead: [string, string, string][] = []
    const queue = new InProcessQueue({
      lingerMs: 20,
      retryInitialMs: 1,
      gates: ['g'],
      deadLetters: async (queued, error, group) => {
        dead.push([queued.span.spanId, error.message, group])
      },
    })
    const handled: string[] = []
    const refused = new Set(['a3', 'a6'])
    await queue.subscribe({
      group: 'g',
      onBatch: async (batch) => {
        if (batch.some((q) => refused.has(q.span.spanId))) throw new UnprocessableSpansError("Code: 27. row 1: 'secret'", 'storage refused it (test)')
        handled.push(...ids(batch))
      },
    })
    const other = spans('b', 3).map((s) => ({ ...s, projectId: 'other' }))
    const [a, b] = await Promise.all([queue.publish(spans('a', 8)), queue.publish(other)])
    assert.deepEqual(a, {
      quarantined: [
        { index: 3, reason: 'storage refused it (test); kept as a dead letter' },
        { index: 6, reason: 'storage refused it (test); kept as a dead letter' },
      ],
    })
    assert.equal(b, undefined, 'nothing of the other project was refused')
    assert.deepEqual(handled.sort(), ['a0', 'a1', 'a2', 'a4', 'a5', 'a7', 'b0', 'b1', 'b2'])
    assert.deepEqual(dead.sort(), [
      ['a3', "Code: 27. row 1: 'secret'", 'g'],
      ['a6', "Code: 27. row 1: 'secret'", 'g'],
    ])
    assert.equal(queue.depth(), 0)
    await queue.close()
  })

  test('batches behind a refused one go on while it is split; close waits for the split to finish', async () => {
    const held = gate()
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 1, gates: ['g'], deadLetters: () => held.opened })
    const handled: string[] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (batch) => {
        if (batch.some((q) => q.span.spanId === 'a0')) throw new UnprocessableSpansError('refused')
        handled.push(...ids(batch))
      },
    })
    let refusedDone = false
    const refused = queue.publish(spans('a', 1)).then(() => {
      refusedDone = true
    })
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('the next batch waited for the refused one')), 5000))
    await Promise.race([queue.publish(spans('b', 2)), timeout])
    assert.deepEqual(handled, ['b0', 'b1'])
    assert.equal(refusedDone, false, 'its dead letter is still being written')
    let closed = false
    const closing = queue.close().then(() => {
      closed = true
    })
    await new Promise((r) => setTimeout(r, 20))
    assert.equal(closed, false)
    held.open()
    await Promise.all([refused, closing])
  })

  test('while storage fails, publishes queued behind the failing batch are answered too, and the queue says it is stalled', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, retryInitialMs: 5, retryMaxMs: 20, gateAttempts: 2, gates: ['g'] })
    let failing = true
    await queue.subscribe({
      group: 'g',
      onBatch: async () => {
        if (failing) throw new Error("Code: 1002. quoting a row: 'secret'")
      },
    })
    const first = queue.publish(spans('a', 1))
    const behind = queue.publish(spans('b', 1))
    for (const publish of [first, behind]) {
      await assert.rejects(publish, (err) => err instanceof QueueUnavailableError && !err.message.includes('secret'))
    }
    assert.match(queue.stalled() ?? '', /^consumer group 'g' has failed \d+ attempts in a row since /)
    failing = false
    await queue.close()
    assert.equal(queue.stalled(), undefined)
  })

  test('states its capabilities: durable once handled, no protobuf forwarding; a subscriber is told its partition is assigned', async () => {
    const queue = new InProcessQueue({ lingerMs: 0, capacity: 1, gates: ['g'] })
    assert.deepEqual(queue.capabilities, { durability: 'handled', forwardsProtobuf: false })
    let assigned = 0
    const held = gate()
    await queue.subscribe({ group: 'g', onBatch: () => held.opened, onAssigned: () => assigned++ })
    assert.equal(assigned, 1)
    assert.equal(queue.saturated(), undefined)
    const published = queue.publish(spans('a', 1))
    assert.equal(queue.saturated()?.reason, 'queue_full')
    held.open()
    await published
    await queue.close()
  })

  test('close drains what is queued and then refuses new spans', async () => {
    const queue = new InProcessQueue({ lingerMs: 20 })
    const delivered: string[] = []
    await queue.subscribe({
      group: 'g',
      onBatch: async (batch) => {
        delivered.push(...ids(batch))
      },
    })
    await queue.publish(spans('a', 2))
    assert.deepEqual(delivered, [], 'without a gating group publish returns before delivery')
    await queue.close()
    assert.deepEqual(delivered, ['a0', 'a1'])
    await assert.rejects(queue.publish(spans('b', 1)), QueueUnavailableError)
  })
})
