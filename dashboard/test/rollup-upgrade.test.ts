// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { migrate, MIGRATIONS_DIR } from '@sieve/core'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { compare, quality, worst, worstQuery } from '../src/index.js'
import { compareQuery, qualityQuery } from '../src/params.js'
import { seed, traceId, type SeedTrace } from './support/seed.js'

/*
 * An install that ran with the 0006 rollups, where re-scores were counted again, upgraded by the
 * next `sieve migrate`: 0007 rebuilds the rollups from `scores` and the figures become exact.
 * Ten traces of v1 (tool_policy fails on 2 and 7), judge accuracy on 0–3.
 */
const H = new Date('2026-11-20T10:00:00Z')
const range = { from: H.toISOString(), to: new Date(H.getTime() + 3_600_000).toISOString() }
const judge = [0.8, 0.4, 1.0, 0.2]

function traces(): SeedTrace[] {
  return Array.from({ length: 10 }, (_, i) => ({
    traceId: traceId(i, 'e'),
    start: new Date(H.getTime() + i * 60_000),
    agentVersion: 'v1',
    scores: [
      { name: 'tool_policy', value: i === 2 || i === 7 ? 0 : 1, passed: i !== 2 && i !== 7 },
      ...(i < 4 ? [{ name: 'accuracy', kind: 'judge' as const, value: judge[i]!, passed: judge[i]! >= 0.6, costUsd: 0.001 }] : []),
    ],
  }))
}

let store: TestStorage
let client: Storage
before(async () => {
  const only0006 = mkdtempSync(join(tmpdir(), 'sieve-migrations-0006-'))
  for (const file of readdirSync(MIGRATIONS_DIR).filter((f) => /^000[1-6]_.*\.sql$/.test(f))) copyFileSync(join(MIGRATIONS_DIR, file), join(only0006, file))
  store = await openTestStorage({ path: mkdtempSync(join(tmpdir(), 'sieve-upgrade-')) })
  client = store.storage
  const applied = await migrate(client, { retentionDays: 3650, dir: only0006 })
  assert.equal(applied.applied.at(-1), '0006_quality_rollups')
})
after(() => store.close())

test('upgrading from the 0006 rollups rebuilds them from scores: figures counted twice become exact', async () => {
  await seed(client, traces())
  // The scorer re-delivers every score after a crash; one more judgment of trace 0 replaces the first.
  const rows = await (await client.query({ query: 'SELECT * EXCEPT created_at FROM scores', format: 'JSONEachRow' })).json<Record<string, unknown>>()
  await client.insert({ table: 'scores', values: rows, format: 'JSONEachRow' })
  await client.insert({
    table: 'scores',
    values: [{ ...rows.find((r) => r.trace_id === traceId(0, 'e') && r.scorer_name === 'accuracy'), value: 0.2, passed: 0 }],
    format: 'JSONEachRow',
  })
  const counted = await (
    await client.query({
      query: "SELECT sum(scored) AS n FROM quality_5m WHERE scorer_name = 'tool_policy'",
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
  ).json<{ n: number }>()
  assert.equal(counted[0]!.n, 20, 'the 0006 rollups count a re-delivered score twice')

  const upgraded = await migrate(client, { retentionDays: 3650 })
  assert.equal(upgraded.applied[0], '0007_exact_quality_rollups', 'the upgrade starts at 0007, what a 0006 install lacks')

  const report = await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h' }))
  const series = (check: string) => report.series.find((s) => s.check === check)!
  assert.deepEqual([series('tool_policy').scored, series('tool_policy').passRate], [[10], [0.8]])
  assert.deepEqual(series('accuracy').scored, [4])
  assert.equal(Math.round(series('accuracy').meanValue[0]! * 1e6), Math.round(((0.2 + 0.4 + 1.0 + 0.2) / 4) * 1e6))
  assert.deepEqual(report.judgedTraces, [4])
  assert.equal(Math.round(report.judgeCostUsd[0]! * 1e6), 4000)
  const byCompare = await compare(client, 'default', compareQuery.parse({ ...range, a: 'v1', b: 'v1' }))
  assert.deepEqual(byCompare.checks.map((c) => [c.check, c.a.scored, c.a.passed]).sort(), [
    ['accuracy', 4, 1],
    ['tool_policy', 10, 8],
  ])
  const listed = await worst(client, 'default', worstQuery.parse(range))
  assert.deepEqual(listed.map((t) => [t.traceId, t.checks, t.checksFailed, t.failedChecks]).sort(), [
    [traceId(2, 'e'), 1, 1, ['tool_policy']],
    [traceId(7, 'e'), 1, 1, ['tool_policy']],
  ])

  // After the upgrade, scores keep arriving through the new views and replace: the first rows again,
  // now the newest, bring trace 0's judgment back to 0.8 without adding a score.
  await client.insert({ table: 'scores', values: rows, format: 'JSONEachRow' })
  const later = await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h' }))
  const laterSeries = (check: string) => later.series.find((s) => s.check === check)!
  assert.deepEqual([laterSeries('tool_policy').scored, laterSeries('accuracy').scored], [[10], [4]])
  assert.equal(Math.round(laterSeries('accuracy').meanValue[0]! * 1e6), 600000)
})
