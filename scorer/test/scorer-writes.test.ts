import assert from 'node:assert/strict'
import { test } from 'node:test'
import { InProcessQueue } from '@sieve/queue'
import { makeTraces } from '@sieve/testkit'
import { resolveChecksConfig, Scorer, type ScoreSink } from '../src/index.js'

/*
 * Every score write costs the engine a part in `scores` and in each of its four rollup views,
 * whatever its size. A tick used to keep writing while traces kept closing, so under a steady
 * trickle the scorer wrote back to back, a few traces at a time: with one sender at a time, score
 * writes were most of the engine's CPU (bench:pipeline). A tick now goes on only while a write was
 * full (a backlog); what closes meanwhile waits for the next tick and its one write.
 */
test('traces that close while a tick writes wait for the next tick: a trickle costs one write a tick', async () => {
  const queue = new InProcessQueue({ lingerMs: 0 })
  const writes: number[] = []
  let sendMore = true
  const sink: ScoreSink = {
    async write(records) {
      writes.push(new Set(records.map((r) => r.traceId)).size)
      if (!sendMore) return
      sendMore = false
      await queue.publish(makeTraces(5, 3))
    },
  }
  const scorer = await Scorer.start({
    queue, sink, checks: resolveChecksConfig({}), gatePublish: true,
    // No quiet period: a trace is due at once. The timer never fires here; the test ticks.
    options: { quietPeriodMs: 0, tickMs: 600_000, writeBatchTraces: 100 },
  })
  try {
    await queue.publish(makeTraces(5, 3))
    assert.equal(await scorer.tick(), 5)
    assert.deepEqual(writes, [5], 'the traces that closed during the write wait for the next tick')
    assert.equal(await scorer.tick(), 5)
    assert.deepEqual(writes, [5, 5])
  } finally {
    await scorer.stop()
    await queue.close()
  }
})

test('a tick writes on while its writes are full, so a backlog drains without waiting a tick per write', async () => {
  const queue = new InProcessQueue({ lingerMs: 0 })
  const writes: number[] = []
  const sink: ScoreSink = { async write(records) { writes.push(new Set(records.map((r) => r.traceId)).size) } }
  const scorer = await Scorer.start({
    queue, sink, checks: resolveChecksConfig({}), gatePublish: true,
    options: { quietPeriodMs: 0, tickMs: 600_000, writeBatchTraces: 4 },
  })
  try {
    await queue.publish(makeTraces(10, 3))
    assert.equal(await scorer.tick(), 10)
    assert.deepEqual(writes, [4, 4, 2])
  } finally {
    await scorer.stop()
    await queue.close()
  }
})
