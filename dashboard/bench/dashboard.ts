import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStorage, migrate, readTrace } from '@sieve/core'
import { compare, quality, traceQuality, worst, worstQuery } from '../src/index.js'
import { compareQuery, qualityQuery } from '../src/params.js'
import { generate } from './generate.js'

/**
 * `npm run bench:dashboard`: 10 million spans (SIEVE_BENCH_SPANS to change) generated inside the
 * embedded engine, then every dashboard query timed (median of 5) against a plain count() scan of
 * the spans table in the same run. Target: every query under 1 s.
 */
const SPANS = Number(process.env.SIEVE_BENCH_SPANS ?? 10_000_000)
const RUNS = 5
const TARGET_MS = 1000
const PROJECT = 'default'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function timed(fn: () => Promise<unknown>): Promise<number> {
  await fn() // warm-up: the first run pays for reading marks and parts from disk
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now()
    await fn()
    times.push(performance.now() - start)
  }
  return median(times)
}

const dir = mkdtempSync(join(tmpdir(), 'sieve-bench-dashboard-'))
const client = await createStorage({ kind: 'embedded', path: dir, database: 'sieve' })
try {
  await migrate(client, { retentionDays: 3650 })
  const end = Math.floor(Date.now() / 1000)
  const started = performance.now()
  const made = await generate(client, { projectId: PROJECT, spans: SPANS, spansPerTrace: 10, days: 7, endSeconds: end })
  console.log(
    `generated ${SPANS.toLocaleString('en-US')} spans, ${made.traces.toLocaleString('en-US')} traces, ${made.scores.toLocaleString('en-US')} scores in ${((performance.now() - started) / 1000).toFixed(1)} s (${Object.entries(
      made.seconds,
    )
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')})`,
  )
  const latest = await (
    await client.query({
      query: `SELECT trace_id FROM traces WHERE project_id = {p:String} ORDER BY start_time DESC LIMIT 1`,
      query_params: { p: PROJECT },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string }>()
  const someTrace = latest[0]?.trace_id ?? ''
  const now = new Date(end * 1000).toISOString()
  const ago = (days: number) => new Date((end - days * 86400) * 1000).toISOString()

  const baseline = await timed(async () => {
    await (await client.query({ query: 'SELECT count() FROM spans WHERE duration_ns >= 0', format: 'JSONEachRow' })).json()
  })
  const queries: [string, () => Promise<unknown>][] = [
    ['quality 24h by check (5m buckets)', () => quality(client, PROJECT, qualityQuery.parse({ from: ago(1), to: now, interval: '5m' }))],
    ['quality 7d by check (1h buckets)', () => quality(client, PROJECT, qualityQuery.parse({ from: ago(7), to: now, interval: '1h' }))],
    [
      'quality 7d by agent_version (1h)',
      () => quality(client, PROJECT, qualityQuery.parse({ from: ago(7), to: now, interval: '1h', groupBy: 'agent_version' })),
    ],
    [
      'quality 7d by model, one check',
      () => quality(client, PROJECT, qualityQuery.parse({ from: ago(7), to: now, groupBy: 'model', check: 'prohibited_tools' })),
    ],
    [
      'compare agent versions, 7d',
      () => compare(client, PROJECT, compareQuery.parse({ a: 'support-agent@1.5.0', b: 'support-agent@1.6.0', from: ago(7), to: now })),
    ],
    ['worst 24h by failed checks', () => worst(client, PROJECT, worstQuery.parse({ from: ago(1), to: now }))],
    ['worst 7d by failed checks', () => worst(client, PROJECT, worstQuery.parse({ from: ago(7), to: now }))],
    ['worst 7d by judge score', () => worst(client, PROJECT, worstQuery.parse({ from: ago(7), to: now, sort: 'judge' }))],
    [
      'worst 7d, one check, one version',
      () => worst(client, PROJECT, worstQuery.parse({ from: ago(7), to: now, check: 'pii_echo', agent_version: 'support-agent@1.6.0' })),
    ],
    ['trace view (spans + scores + feedback)', () => Promise.all([readTrace(client, PROJECT, someTrace), traceQuality(client, PROJECT, someTrace)])],
  ]
  console.log(
    `\nbaseline: SELECT count() FROM spans WHERE duration_ns >= 0 over ${SPANS.toLocaleString('en-US')} spans: ${baseline.toFixed(1)} ms (median of ${RUNS})\n`,
  )
  console.log(`${'query'.padEnd(40)} ${'median ms'.padStart(10)} ${'x baseline'.padStart(11)}  < ${TARGET_MS} ms`)
  let failed = 0
  for (const [name, fn] of queries) {
    const ms = await timed(fn)
    if (ms >= TARGET_MS) failed++
    console.log(`${name.padEnd(40)} ${ms.toFixed(1).padStart(10)} ${(ms / baseline).toFixed(2).padStart(11)}  ${ms < TARGET_MS ? 'yes' : 'NO'}`)
  }
  console.log(failed ? `\n${failed} queries over ${TARGET_MS} ms` : `\nevery dashboard query under ${TARGET_MS} ms`)

  // What exact rollups cost the scorer: one batch of re-scores (the score rows of the 100 newest
  // traces, written again) into `scores` with its views, against the same rows into a copy of the
  // table without views. Re-scores replace, so the figures above are unchanged by this.
  const batch = await (
    await client.query({
      query: `SELECT * EXCEPT created_at FROM scores WHERE project_id = {p:String}
            AND trace_id IN (SELECT trace_id FROM traces WHERE project_id = {p:String} ORDER BY start_time DESC LIMIT 100)`,
      query_params: { p: PROJECT },
      format: 'JSONEachRow',
    })
  ).json<Record<string, unknown>>()
  await client.command({ query: 'CREATE TABLE scores_without_views AS scores' })
  const plain = await timed(() => client.insert({ table: 'scores_without_views', values: batch, format: 'JSONEachRow' }))
  const viewed = await timed(() => client.insert({ table: 'scores', values: batch, format: 'JSONEachRow' }))
  console.log(
    `\nscore write, ${batch.length} rows of 100 traces scored again: ${viewed.toFixed(1)} ms into scores (rollup views), ${plain.toFixed(1)} ms into a table without views (${(viewed / plain).toFixed(2)}x)`,
  )
  process.exitCode = failed ? 1 : 0
} finally {
  await client.close()
  rmSync(dir, { recursive: true, force: true })
}
