import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger, loadConfig, type SpanQueue, type Storage } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { makeSpan } from '@sieve/testkit'
import { openQueue } from '../src/queue.js'

/**
 * The embedded queue as `sieve up` opens it from `env`, with a consumer that takes nothing until the
 * test ends: what it has not handled is what the queue holds.
 */
async function withHeldQueue(env: Record<string, string>, body: (queue: SpanQueue) => Promise<void>): Promise<void> {
  // Storage takes only dead letters, and no span here is refused: it is never reached.
  const queue = await openQueue(loadConfig(env), createPipelineMetrics(), 'up', createLogger({ level: 'error' }), {} as Storage)
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const subscription = await queue.subscribe({ group: 'slow', onBatch: () => held })
  try {
    await body(queue)
  } finally {
    release()
    await subscription.close()
    await queue.close()
  }
}

test('SIEVE_MAX_QUEUE_SPANS bounds the embedded queue: at the cap new requests are shed and a publish past it is refused', async () => {
  await withHeldQueue({ SIEVE_MAX_QUEUE_SPANS: '3' }, async (queue) => {
    await queue.publish([makeSpan(), makeSpan()])
    assert.equal(queue.saturated(), undefined, 'two of three spans held: room left')
    await assert.rejects(queue.publish([makeSpan(), makeSpan()]), /holds 2 of 3 spans/)
    await queue.publish([makeSpan()])
    assert.equal(queue.saturated()?.reason, 'queue_full')
  })
})

test('SIEVE_MAX_QUEUE_BYTES bounds the embedded queue by what its spans weighed on the wire', async () => {
  await withHeldQueue({ SIEVE_MAX_QUEUE_BYTES: '10000' }, async (queue) => {
    await queue.publish([makeSpan(), makeSpan()], 8000)
    assert.equal(queue.saturated(), undefined, '8,000 of 10,000 bytes held: room left')
    await assert.rejects(queue.publish([makeSpan()], 4000), /holds 8000 of 10000 bytes of spans/)
    await queue.publish([makeSpan()], 2000)
    assert.equal(queue.saturated()?.reason, 'queue_full')
  })
})
