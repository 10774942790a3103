import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { exportStats, flush, init, shutdown, traceAgent } from '@sieve/sdk'

/*
 * An agent served over HTTP flushes its spans before each answer (as Sieve's HTTP agent protocol
 * and serverless hosts ask). Requests served at once then flush at once; the OTLP exporter refuses
 * exports past its limit in flight (30), so flushes must share exports rather than each start one.
 */
test("requests served at once, each flushing before it answers, lose no span to the exporter's limit on exports in flight", async () => {
  let inFlight = 0
  let most = 0
  const collector = createServer((req, res) => {
    most = Math.max(most, ++inFlight)
    req.resume()
    req.on('end', () =>
      setTimeout(() => {
        inFlight--
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end()
      }, 30),
    )
  })
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve))
  try {
    assert.equal(
      init({ serviceName: 'served', endpoint: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`, scheduledDelayMillis: 60_000 }).ok,
      true,
    )
    await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        traceAgent('turn', { sessionId: `s${i}` }, () => 'answered')
        await flush()
      }),
    )
    const stats = exportStats()
    assert.deepEqual({ exported: stats.exported, failed: stats.failed, pending: stats.pending }, { exported: 60, failed: 0, pending: 0 })
    assert.ok(most <= 2, `${most} exports in flight at once`)
  } finally {
    await shutdown(500)
    collector.closeAllConnections()
    await new Promise((resolve) => collector.close(resolve))
  }
})
