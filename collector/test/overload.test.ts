import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { freshTraceIds, metricValue, otlpSender, protobufBatch, startSieveUp } from '@sieve/testkit/bench'
import { createHttpApp, listen } from '@sieve/http'

/**
 * A client on a thread of its own, so it keeps sending while the server's thread is stalled: one
 * request on a kept-alive connection, then (told to) a second one on the same connection.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads')
const http = require('node:http')
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
const get = () => new Promise((resolve) => {
  const req = http.get(workerData.url, { agent }, (res) => { res.resume(); res.on('end', () => resolve(String(res.statusCode))) })
  req.on('error', (err) => resolve(err.code ?? err.message))
})
parentPort.on('message', async (what) => parentPort.postMessage(await get()))
`

describe('under overload every request gets an answer', () => {
  test('a request sent on a kept-alive connection while the event loop is stalled past the keep-alive timeout is answered', async () => {
    const app = createHttpApp({ name: 'test', notReady: async () => undefined, routers: [], log: () => {} })
    // A short idle timeout, so that the stall below outlasts it without a long test (at 1 s Node's
    // client would not keep the connection: its hint, less its own 1 s margin, leaves nothing).
    const server = await listen(app, '127.0.0.1', 0, { keepAliveTimeoutMs: 2000 })
    const client = new Worker(CLIENT, { eval: true, workerData: { url: `${server.url}/healthz` } })
    try {
      client.postMessage('first')
      assert.equal((await once(client, 'message'))[0], '200')
      // The second request leaves while this thread is blocked for longer than the server keeps an
      // idle connection (2 s here, and Node's 1 s margin): what a long decode or a major GC does to
      // a kept-alive sender under load. Node then runs the connection's idle timer before it reads
      // the request waiting on it, and used to close the connection under it (ECONNRESET).
      const answer = once(client, 'message')
      client.postMessage('second')
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000)
      assert.equal((await answer)[0], '200')
    } finally {
      await client.terminate()
      await server.stop()
    }
  })

  test('sieve up past its capacity answers every request 200 or 429/503 with Retry-After, and every scrape', async () => {
    const work = mkdtempSync(join(tmpdir(), 'sieve-overload-'))
    // Requests of 2,000 spans, 32 in flight, sent again as soon as answered: more than the
    // embedded store takes on two cores. A 1 s queue wait sheds within seconds and drains fast.
    const bodies = Array.from({ length: 4 }, () => freshTraceIds(protobufBatch(2000)))
    const sieve = await startSieveUp(join(work, 'data'), { SIEVE_MAX_QUEUE_WAIT_MS: '1000' })
    const sender = otlpSender(sieve.url, 32)
    const answers = new Map<string, number>()
    const scrapes: number[] = []
    let scrapesFailed = 0
    try {
      const until = performance.now() + 15_000
      let sent = 0
      const sending = Array.from({ length: 32 }, async () => {
        while (performance.now() < until) {
          const body = bodies[sent % bodies.length]!(++sent)
          const kind = await sender.send(body).then(
            ({ status, retryAfter }) => (status === 200 || retryAfter !== undefined ? String(status) : `${status} without Retry-After`),
            (err: NodeJS.ErrnoException) => err.code ?? err.message,
          )
          answers.set(kind, (answers.get(kind) ?? 0) + 1)
        }
      })
      const scraping = (async () => {
        while (performance.now() < until) {
          const started = performance.now()
          await fetch(new URL('/metrics', sieve.url), { signal: AbortSignal.timeout(5000) }).then(
            async (res) => {
              await res.text()
              if (res.ok) scrapes.push(performance.now() - started)
              else scrapesFailed++
            },
            () => scrapesFailed++,
          )
          await sleep(500)
        }
      })()
      await Promise.all([...sending, scraping])
      const metrics = await sieve.metrics()
      const stall = metricValue(metrics, /^sieve_event_loop_delay_max_seconds (\S+)/m)
      const figures = `answers ${JSON.stringify(Object.fromEntries(answers))}; scrapes ${scrapes.length}, slowest ${Math.round(Math.max(...scrapes))} ms; longest stall ${Math.round(stall * 1000)} ms`
      assert.deepEqual(
        [...answers.keys()].filter((kind) => !['200', '429', '503'].includes(kind)),
        [],
        figures,
      )
      assert.ok((answers.get('429') ?? 0) > 0, `the load is past capacity: ${figures}`)
      assert.ok((answers.get('200') ?? 0) > 0, `and spans are still taken: ${figures}`)
      assert.equal(scrapesFailed, 0, figures)
    } finally {
      sender.close()
      await sieve.stop()
      rmSync(work, { recursive: true, force: true })
    }
  })
})
