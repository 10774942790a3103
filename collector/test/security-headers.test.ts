import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Storage } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { InProcessQueue } from '@sieve/queue'
import { listen, LOAD_NOTHING_POLICY } from '@sieve/http'
import { createApp } from '../src/index.js'

const unreachable = {
  query: async () => {
    throw new Error('storage is down')
  },
} as unknown as Storage

test('every answer carries the security headers: 404s, errors, health, metrics and OTLP alike', async () => {
  const queue = new InProcessQueue()
  const app = createApp({ queue, storage: unreachable, apiKeys: new Map(), maxBodyBytes: 1024, metrics: createPipelineMetrics(), log: () => {} })
  const server = await listen(app, '127.0.0.1', 0)
  try {
    const answers = await Promise.all([
      fetch(`${server.url}/no/such/path`),
      fetch(`${server.url}/v1/metrics`, { method: 'POST' }),
      fetch(`${server.url}/healthz`),
      fetch(`${server.url}/readyz`),
      fetch(`${server.url}/metrics`),
      fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }),
      fetch(`${server.url}/api/traces`),
    ])
    assert.deepEqual(
      answers.map((res) => res.status),
      [404, 404, 200, 503, 200, 415, 503],
    )
    for (const res of answers) {
      assert.equal(res.headers.get('content-security-policy'), LOAD_NOTHING_POLICY, res.url)
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', res.url)
      assert.equal(res.headers.get('x-frame-options'), 'DENY', res.url)
      assert.equal(res.headers.get('referrer-policy'), 'no-referrer', res.url)
    }
  } finally {
    await server.stop()
    await queue.close()
  }
})
