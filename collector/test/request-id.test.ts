import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import { createApp } from '../src/index.js'
import { listen } from '@sieve/http'

/*
 * Every answer carries a request id, the caller's when usable, and a failure's log line names it:
 * a client quoting the id finds its failure. API keys never reach a log line.
 */

const failing = {
  query: async () => {
    throw new Error('Code: 27. DB::Exception: Cannot parse input')
  },
} as unknown as Storage

test('a failed read answers with a request id; the log line of the failure names it, never the key', async () => {
  const lines: { message: string; fields?: Record<string, unknown> }[] = []
  const app = createApp({
    queue: new InProcessQueue(),
    storage: failing,
    apiKeys: new Map([['secret-key-123', 'shop']]),
    maxBodyBytes: 1024,
    metrics: createPipelineMetrics(),
    log: (message, fields) => lines.push({ message, ...(fields ? { fields } : {}) }),
  })
  const server = await listen(app, '127.0.0.1', 0)
  try {
    const res = await fetch(`${server.url}/api/traces`, { headers: { authorization: 'Bearer secret-key-123' } })
    assert.equal(res.status, 503)
    const id = res.headers.get('x-request-id')
    assert.match(id ?? '', /^[0-9a-f-]{36}$/, 'a generated id')
    assert.equal(lines.length, 1)
    assert.equal(lines[0]!.fields?.requestId, id)
    assert.doesNotMatch(JSON.stringify(lines), /secret-key-123/)

    const given = await fetch(`${server.url}/api/traces`, { headers: { authorization: 'Bearer secret-key-123', 'x-request-id': 'ci-run-42.7' } })
    assert.equal(given.headers.get('x-request-id'), 'ci-run-42.7', "the caller's id is kept")
    assert.equal(lines[1]!.fields?.requestId, 'ci-run-42.7')
    for (const bad of ['a b', 'x'.repeat(80), '{"json":1}']) {
      const hostile = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': bad } })
      assert.match(hostile.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/, `'${bad.slice(0, 12)}' is not kept: it would be written into logs`)
    }
  } finally {
    await server.stop()
  }
})
