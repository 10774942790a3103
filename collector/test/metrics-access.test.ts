import assert from 'node:assert/strict'
import { networkInterfaces } from 'node:os'
import { after, describe, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import { createApp } from '@sieve/collector'
import { listen, type RunningServer } from '@sieve/http'
import { isLoopbackAddress } from '../src/metrics-access.js'

/*
 * /metrics names every project and counts what each sent. With API keys it is for this machine, or
 * for whoever holds SIEVE_METRICS_TOKEN; without keys (loopback-only Sieve) it stays open.
 */

const TOKEN = 'prometheus-scrape-token-0123456789'
/** This machine's own non-loopback address, if it has one: connecting to it is connecting from it. */
const lan = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && !i.internal && i.family === 'IPv4')?.address

const servers: RunningServer[] = []
after(() => Promise.all(servers.map((s) => s.stop())))

/** The ops app (health, readiness, metrics) as `sieve ingester` runs it, with a project's spans counted. */
async function start(options: { apiKeys?: Map<string, string>; metricsToken?: string; host?: string }): Promise<RunningServer> {
  const metrics = createPipelineMetrics()
  metrics.spansAccepted.inc({ project: 'acme-secret-project' }, 3)
  const app = createApp({
    queue: new InProcessQueue(),
    storage: {} as Storage,
    metrics,
    maxBodyBytes: 1 << 20,
    serveTraffic: false,
    apiKeys: options.apiKeys ?? new Map(),
    ...(options.metricsToken ? { metricsToken: options.metricsToken } : {}),
  })
  const server = await listen(app, options.host ?? '127.0.0.1', 0)
  servers.push(server)
  return server
}

const scrape = (url: string, headers: Record<string, string> = {}) => fetch(`${url}/metrics`, { headers })
const keys = new Map([['key-a', 'acme-secret-project']])

describe('/metrics access', () => {
  test('without API keys it answers as before', async () => {
    const res = await scrape((await start({})).url)
    assert.equal(res.status, 200)
    assert.match(await res.text(), /sieve_spans_accepted_total\{project="acme-secret-project"\} 3/)
  })

  test('with API keys and no token it answers loopback clients', async () => {
    const res = await scrape((await start({ apiKeys: keys })).url)
    assert.equal(res.status, 200)
    assert.match(await res.text(), /acme-secret-project/)
  })

  test('with API keys and no token it refuses other clients, a project key included', {
    skip: lan ? false : 'no non-loopback address on this machine',
  }, async () => {
    const server = await start({ apiKeys: keys, host: '0.0.0.0' })
    const res = await scrape(`http://${lan}:${server.port}`, { authorization: 'Bearer key-a', 'x-forwarded-for': '127.0.0.1' })
    assert.equal(res.status, 403)
    const text = await res.text()
    assert.match(text, /SIEVE_METRICS_TOKEN/)
    assert.doesNotMatch(text, /acme-secret-project/)
    // The same server still answers on loopback.
    assert.equal((await scrape(`http://127.0.0.1:${server.port}`)).status, 200)
  })

  test('with a token it requires Authorization: Bearer <token>, from anywhere', async () => {
    const server = await start({ apiKeys: keys, metricsToken: TOKEN, host: lan ? '0.0.0.0' : '127.0.0.1' })
    const local = `http://127.0.0.1:${server.port}`
    const refused: Record<string, string>[] = [
      {},
      { authorization: 'Bearer key-a' },
      { 'x-api-key': TOKEN },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: TOKEN },
    ]
    for (const headers of refused) {
      const res = await scrape(local, headers)
      assert.equal(res.status, 401, JSON.stringify(headers))
      assert.equal(res.headers.get('www-authenticate'), 'Bearer')
      assert.doesNotMatch(await res.text(), /acme-secret-project/)
    }
    assert.equal((await scrape(local, { authorization: `Bearer ${TOKEN}` })).status, 200)
    if (lan) {
      const res = await scrape(`http://${lan}:${server.port}`, { authorization: `bearer ${TOKEN}` })
      assert.equal(res.status, 200)
      assert.match(await res.text(), /acme-secret-project/)
    }
  })

  test('a token is required even without API keys, once configured', async () => {
    const server = await start({ metricsToken: TOKEN })
    assert.equal((await scrape(server.url)).status, 401)
    assert.equal((await scrape(server.url, { authorization: `Bearer ${TOKEN}` })).status, 200)
  })

  test('health and readiness stay open', async () => {
    const server = await start({ apiKeys: keys, metricsToken: TOKEN })
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200)
  })

  test('loopback is 127.0.0.0/8 and ::1, also IPv4-mapped; nothing else', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::FFFF:127.0.0.2']) assert.ok(isLoopbackAddress(a), a)
    for (const a of [undefined, '', '10.0.0.1', '192.0.2.2', '::ffff:10.0.0.1', '1127.0.0.1', '127.0.0.1.evil', 'fe80::1', '::2', '0.0.0.0'])
      assert.ok(!isLoopbackAddress(a), String(a))
  })
})
