import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger, loadConfig, type Storage } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { makeSpan } from '@sieve/testkit'
import { openQueue } from '../src/queue.js'

test('SIEVE_MAX_QUEUE_SPANS bounds the embedded queue: at the cap new requests are shed and a publish past it is refused', async () => {
  const config = loadConfig({ SIEVE_MAX_QUEUE_SPANS: '3' })
  // Storage takes only dead letters, and no span here is refused: it is never reached.
  const queue = await openQueue(config, createPipelineMetrics(), 'up', createLogger({ level: 'error' }), {} as Storage)
  // A consumer that takes nothing until told: what it has not handled is what the queue holds.
  let release = () => {}
  const held = new Promise<void>((resolve) => {
    release = resolve
  })
  const subscription = await queue.subscribe({ group: 'slow', onBatch: () => held })
  try {
    await queue.publish([makeSpan(), makeSpan()])
    assert.equal(queue.saturated(), undefined, 'two of three spans held: room left')
    await assert.rejects(queue.publish([makeSpan(), makeSpan()]), /holds 2 of 3 spans/)
    await queue.publish([makeSpan()])
    assert.equal(queue.saturated()?.reason, 'queue_full')
  } finally {
    release()
    await subscription.close()
    await queue.close()
  }
})
