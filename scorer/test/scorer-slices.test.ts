import assert from 'node:assert/strict'
import { test } from 'node:test'
import { nextTurn } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { makeTraces } from '@sieve/testkit'
import { resolveChecksConfig } from '@sieve/scoring'
import { Scorer } from '../src/index.js'

/*
 * A delivered batch goes into assembly in time slices. Added in one go, a batch of 8,192 spans (in
 * process) or 20,000 (from Kafka) held the main thread for 100-300 ms under overload, and no
 * request, scrape or other turn was served meanwhile.
 */

test('a large batch is assembled in slices: other turns run before its delivery is handled', async () => {
  const queue = new InProcessQueue({ lingerMs: 0, gates: ['scorer'], capacity: 1_000_000 })
  // Nothing closes or is evicted: the test is about taking the spans in, not scoring them.
  const scorer = await Scorer.start({
    queue,
    sink: { write: async () => {} },
    checks: resolveChecksConfig({}),
    options: { quietPeriodMs: 600_000, tickMs: 600_000, maxOpenTraces: 1_000_000, maxOpenSpans: 1_000_000 },
  })
  try {
    // One publish is one batch however large; 200,000 spans take far longer than one 20 ms slice to add on any machine.
    let handled = false
    const published = queue.publish(makeTraces(25_000, 8)).finally(() => {
      handled = true
    })
    let turnsMeanwhile = 0
    while (!handled) {
      await nextTurn()
      if (!handled) turnsMeanwhile++
    }
    await published
    assert.ok(turnsMeanwhile >= 2, `other turns ran ${turnsMeanwhile} times while the batch was assembled`)
  } finally {
    await scorer.stop()
    await queue.close()
  }
})
