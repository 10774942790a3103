import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { InProcessQueue } from '@sieve/queue'
import { QueueFullError } from '@sieve/core'
import { makeTraces, until } from '@sieve/testkit'
import { resolveChecksConfig, type ScoreSink } from '@sieve/scoring'
import { Scorer } from '../src/index.js'

/*
 * Issue #19, overload on the embedded default: with the queue pinned at its bound and answering 429,
 * memory grew without plateau. The queue bounds what the ingester has not stored, but the scorer's
 * consumer group took every span at once, so a scorer slower than ingest gathered closed traces
 * without bound. Now it stops taking spans past `maxUnscoredSpans`, and the queue pushes back.
 */

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const liveHeap = () => {
  gc()
  return process.memoryUsage().heapUsed
}

test('a scorer slower than ingest holds a bounded backlog and the queue pushes back; the heap follows the bound, not the load', async () => {
  const bound = 4000
  const capacity = 4000
  const queue = new InProcessQueue({ capacity, lingerMs: 0 })
  let scoredTraces = 0
  // Score writes at 20 ms a chunk of 25 traces: far slower than spans are published below.
  const sink: ScoreSink = {
    async write(records) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      scoredTraces += new Set(records.map((r) => r.traceId)).size
    },
  }
  const scorer = await Scorer.start({
    queue,
    sink,
    checks: resolveChecksConfig({}),
    options: { quietPeriodMs: 0, tickMs: 10, writeBatchTraces: 25, maxUnscoredSpans: bound, rememberSpans: 0 },
  })
  // What a span held costs the heap: spans made as the load makes them, kept, measured.
  const base = liveHeap()
  const sample = makeTraces(500, 8)
  const spanHeap = (liveHeap() - base) / sample.length
  sample.length = 0

  // A fixed-size overload: 6,000 traces of 8 spans with content, 50 traces a request, each request
  // made fresh (as decoded from the wire) and sent as soon as the queue takes the one before.
  const traces = 6000
  const before = liveHeap()
  let refused = 0
  let mostUnscored = 0
  let mostHeld = 0
  let peakHeap = 0
  for (let sent = 0; sent < traces; sent += 50) {
    const request = makeTraces(50, 8)
    for (;;) {
      try {
        await queue.publish(request)
        break
      } catch (err) {
        if (!(err instanceof QueueFullError)) throw err
        refused++
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
    }
    // As requests arrive over the network: ticks run between them.
    await new Promise((resolve) => setTimeout(resolve, 2))
    mostUnscored = Math.max(mostUnscored, scorer.assembler.unscoredSpans)
    mostHeld = Math.max(mostHeld, scorer.assembler.unscoredSpans + scorer.assembler.openSpans)
    if (sent % 1000 === 0) peakHeap = Math.max(peakHeap, liveHeap() - before)
  }
  peakHeap = Math.max(peakHeap, liveHeap() - before)
  await new Promise<void>((resolve, reject) => {
    const end = Date.now() + 60_000
    const poll = () => (scoredTraces >= traces ? resolve() : Date.now() > end ? reject(new Error(`scored ${scoredTraces} of ${traces}`)) : setTimeout(poll, 20))
    poll()
  })
  await scorer.stop()
  await queue.close()
  const after = liveHeap() - before

  assert.equal(scoredTraces, traces)
  assert.ok(refused > 0, 'the queue pushed back')
  // Waiting to be scored: the bound, overshot by what the queue held when the scorer last took spans
  // and what it delivered before a tick closed those (each at most its capacity).
  assert.ok(mostUnscored <= bound + 2 * capacity, `at most ${bound} (+ the queue's worth) spans waiting to be scored, saw ${mostUnscored}`)
  assert.ok(mostHeld <= bound + 2 * capacity + 800, `held ${mostHeld} of the ${traces * 8} spans sent`)
  // The heap holds the scorer's bounded backlog and the queue's, not the load (48,000 spans).
  const allowed = (bound + 3 * capacity + 800) * spanHeap
  assert.ok(
    peakHeap < allowed,
    `heap grew ${Math.round(peakHeap / 2 ** 20)} MiB, bound ${Math.round(allowed / 2 ** 20)} MiB (${Math.round(spanHeap)} bytes a span)`,
  )
  // After the run the heap is back near where it started: within 5% of what the load weighed.
  assert.ok(after < 0.05 * traces * 8 * spanHeap, `heap after the run ${(after / 2 ** 20).toFixed(1)} MiB above its start`)
})

test('large spans: past maxUnscoredBytes of closed traces the scorer takes no more, whatever their span count', async () => {
  const queue = new InProcessQueue({ lingerMs: 0 })
  let release!: () => void
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  let scoredTraces = 0
  const sink: ScoreSink = {
    async write(records) {
      await released
      scoredTraces += new Set(records.map((r) => r.traceId)).size
    },
  }
  const scorer = await Scorer.start({
    queue,
    sink,
    checks: resolveChecksConfig({}),
    options: { quietPeriodMs: 0, tickMs: 5, maxOpenBytes: 40_000, maxUnscoredBytes: 50_000, rememberSpans: 0 },
  })
  // Ten one-span traces that came in 20,000 bytes each: far below any spans bound.
  for (let i = 0; i < 10; i++) {
    await queue.publish(makeTraces(1, 1), 20_000)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  // The stuck write keeps traces open until maxOpenBytes evicts them; evicted, they wait to be scored.
  const held = scorer.assembler.unscoredBytes + scorer.assembler.openBytes
  assert.ok(held <= 100_000, `the scorer holds both bounds and one more trace at most, saw ${held} bytes`)
  assert.ok(queue.bytes() >= 100_000, `the rest waits in the queue, saw ${queue.bytes()} bytes`)
  release()
  await until('all ten traces scored', () => scoredTraces === 10, 10_000)
  await scorer.stop()
  await queue.close()
})
