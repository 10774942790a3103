import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { SubscribeOptions, Subscription } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { makeTraces, until } from '@sieve/testkit'
import { resolveChecksConfig } from '@sieve/scoring'
import { Scorer } from '../src/index.js'

/*
 * Every score write costs the engine a part in `scores` and in each of its four rollup views,
 * whatever its size. A tick used to keep writing while traces kept closing, so under a steady
 * trickle the scorer wrote back to back, a few traces at a time: with one sender at a time, score
 * writes were most of the engine's CPU (bench:pipeline). A tick now goes on only while a write was
 * full (a backlog); what closes meanwhile waits for the next tick and its one write.
 */

/**
 * A scorer whose traces are due at once and whose timer never fires (the test ticks), recording the
 * traces of each score write; `duringWrite` runs inside each write, before it resolves.
 */
async function tickedScorer(writeBatchTraces: number, duringWrite: (queue: InProcessQueue) => Promise<void> = async () => {}) {
  const queue = new InProcessQueue({ lingerMs: 0, gates: ['scorer'] })
  const writes: number[] = []
  const scorer = await Scorer.start({
    queue,
    sink: {
      async write(records) {
        writes.push(new Set(records.map((r) => r.traceId)).size)
        await duringWrite(queue)
      },
    },
    checks: resolveChecksConfig({}),
    options: { quietPeriodMs: 0, tickMs: 600_000, writeBatchTraces },
  })
  return {
    queue,
    scorer,
    writes,
    close: async () => {
      await scorer.stop()
      await queue.close()
    },
  }
}

test('traces that close while a tick writes wait for the next tick: a trickle costs one write a tick', async () => {
  let sendMore = true
  const { queue, scorer, writes, close } = await tickedScorer(100, async (queue) => {
    if (!sendMore) return
    sendMore = false
    await queue.publish(makeTraces(5, 3))
  })
  try {
    await queue.publish(makeTraces(5, 3))
    assert.equal(await scorer.tick(), 5)
    assert.deepEqual(writes, [5], 'the traces that closed during the write wait for the next tick')
    assert.equal(await scorer.tick(), 5)
    assert.deepEqual(writes, [5, 5])
  } finally {
    await close()
  }
})

test('a tick writes on while its writes are full, so a backlog drains without waiting a tick per write', async () => {
  const { queue, scorer, writes, close } = await tickedScorer(4)
  try {
    await queue.publish(makeTraces(10, 3))
    assert.equal(await scorer.tick(), 10)
    assert.deepEqual(writes, [4, 4, 2])
  } finally {
    await close()
  }
})

/** An embedded queue whose subscribers' commits go to `onCommit`. */
abstract class CommitsQueue extends InProcessQueue {
  protected abstract onCommit(points: ReadonlyMap<number, string>): Promise<void>

  override async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const subscription = await super.subscribe(options)
    return { commit: (points) => this.onCommit(points), close: () => subscription.close() }
  }
}

/** An embedded queue whose subscribers' commits hang until `release()`, as commits to a group coordinator that moved do. */
class StalledCommitsQueue extends CommitsQueue {
  readonly commits: ReadonlyMap<number, string>[] = []
  private readonly released: Promise<void>
  release!: () => void

  constructor(...args: ConstructorParameters<typeof InProcessQueue>) {
    super(...args)
    this.released = new Promise((resolve) => (this.release = resolve))
  }

  protected async onCommit(points: ReadonlyMap<number, string>): Promise<void> {
    this.commits.push(points)
    await this.released
  }
}

/** A scorer on `queue` whose traces are due at once and whose timer never fires (the test ticks). */
const tickedOn = (queue: InProcessQueue) =>
  Scorer.start({ queue, sink: { write: async () => {} }, checks: resolveChecksConfig({}), options: { quietPeriodMs: 0, tickMs: 600_000 } })

test('a commit that hangs holds up no scoring, and the commit after it carries the latest points', async () => {
  const queue = new StalledCommitsQueue({ lingerMs: 0, gates: ['scorer'] })
  const scorer = await tickedOn(queue)
  try {
    await queue.publish(makeTraces(3, 2))
    assert.equal(await scorer.tick(), 3)
    await queue.publish(makeTraces(4, 2))
    assert.equal(await scorer.tick(), 4, 'scored while the first commit still hangs')
    await queue.publish(makeTraces(5, 2))
    assert.equal(await scorer.tick(), 5)
    assert.equal(queue.commits.length, 1, 'one commit at a time')
    queue.release()
    await scorer.stop()
    assert.equal(queue.commits.length, 2, 'the ticks during the hung commit made one more')
    const [first, last] = queue.commits.map((points) => BigInt(points.get(0) ?? -1))
    assert.ok(last! > first!, `the second commit is past the first (${first} then ${last})`)
  } finally {
    queue.release()
    await scorer.stop()
    await queue.close()
  }
})

test('a tick with nothing new commits nothing: an idle scorer does no work a second', async () => {
  const queue = new StalledCommitsQueue({ lingerMs: 0, gates: ['scorer'] })
  queue.release()
  const scorer = await tickedOn(queue)
  try {
    await queue.publish(makeTraces(3, 2))
    assert.equal(await scorer.tick(), 3)
    const afterScoring = queue.commits.length
    assert.ok(afterScoring >= 1)
    assert.equal(await scorer.tick(), 0)
    assert.equal(await scorer.tick(), 0)
    assert.equal(queue.commits.length, afterScoring, 'idle ticks commit nothing')
    await queue.publish(makeTraces(2, 2))
    assert.equal(await scorer.tick(), 2)
    assert.ok(queue.commits.length > afterScoring, 'the next trace scored is committed')
  } finally {
    await scorer.stop()
    await queue.close()
  }
})

/** An embedded queue whose subscribers' first commit fails, as a commit to a coordinator that moved does. */
class FirstCommitFailsQueue extends CommitsQueue {
  readonly commits: { points: ReadonlyMap<number, string>; ok: boolean }[] = []

  protected async onCommit(points: ReadonlyMap<number, string>): Promise<void> {
    const ok = this.commits.length > 0
    this.commits.push({ points, ok })
    if (!ok) throw new Error('not the coordinator')
  }
}

test('a commit that failed is made again, with nothing new since', async () => {
  const queue = new FirstCommitFailsQueue({ lingerMs: 0, gates: ['scorer'] })
  const scorer = await tickedOn(queue)
  try {
    await queue.publish(makeTraces(3, 2))
    assert.equal(await scorer.tick(), 3)
    await until('the first commit', () => queue.commits.length > 0, 5000)
    assert.equal(await scorer.tick(), 0)
    const [failed] = queue.commits
    assert.equal(failed?.ok, false)
    assert.ok((failed?.points.size ?? 0) > 0)
    await until('the same points committed again', () => queue.commits.some((c) => c.ok && String([...c.points]) === String([...failed!.points])), 5000)
  } finally {
    await scorer.stop()
    await queue.close()
  }
})
