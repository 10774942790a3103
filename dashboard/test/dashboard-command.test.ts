// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { assertSecurityHeaders } from './support/security-headers.js'
import { runSieve, startSieve } from './support/sieve.js'

let sieve: Awaited<ReturnType<typeof startSieve>>

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sieve-dashboard-cmd-'))
  const migrated = await runSieve(['migrate'], dataDir)
  assert.equal(migrated.code, 0, migrated.output)
  sieve = await startSieve('dashboard', dataDir)
})
after(() => sieve?.stop())

test('sieve dashboard serves the UI, its assets and the query API without ingesting', async () => {
  const page = await fetch(sieve.dashboard)
  assert.equal(page.status, 200)
  assert.match(await page.text(), /<script type="module" src="app.js">/)
  const chart = await fetch(new URL('vendor/uplot/uPlot.esm.js', sieve.dashboard))
  assert.equal(chart.status, 200)
  assert.match(chart.headers.get('content-type') ?? '', /javascript/)
  const quality = await fetch(`${sieve.url}/api/quality?interval=1h`)
  assert.equal(quality.status, 200)
  const body = (await quality.json()) as { buckets: number[]; series: unknown[] }
  assert.ok(body.buckets.length === 24 || body.buckets.length === 25, 'hourly buckets over the last 24 hours')
  assert.deepEqual(body.series, [])
  const ingest = await fetch(`${sieve.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  assert.equal(ingest.status, 404, 'the dashboard role takes no traces')
  const ready = await fetch(`${sieve.url}/readyz`)
  assert.deepEqual([ready.status, await ready.json()], [200, { status: 'ready' }], 'migrated storage: ready (orchestrators probe /readyz)')
})

test('sieve dashboard on storage not migrated answers /readyz 503 saying so', async () => {
  const bare = await startSieve('dashboard', mkdtempSync(join(tmpdir(), 'sieve-dashboard-bare-')))
  try {
    const ready = await fetch(`${bare.url}/readyz`)
    assert.equal(ready.status, 503)
    assert.match(((await ready.json()) as { message: string }).message, /migrations not applied: run `sieve migrate`/)
  } finally {
    await bare.stop()
  }
})

test('sieve dashboard sends the security headers on its UI, its API and the redirect at /', async () => {
  const home = await fetch(`${sieve.url}/`, { redirect: 'manual' })
  assert.equal(home.status, 302)
  assert.equal(home.headers.get('location'), '/ui/')
  for (const path of [
    '/',
    '/ui',
    '/ui/',
    '/ui/app.js',
    '/ui/vendor/uplot/uPlot.min.css',
    '/api/quality',
    '/api/quality?from=99999999999999999999999',
    '/api/traces',
    '/api/nope',
  ]) {
    await assertSecurityHeaders(`${sieve.url}${path}`)
  }
})
