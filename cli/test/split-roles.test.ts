import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createStorage, type Storage } from '@sieve/core'
import { countRows, printed, roleMetricsUrl, sharedBrokers, spawnSieve, until, type SieveProcess } from '@sieve/testkit'
import { spawnClickHouseHttp, type ClickHouseHttpProcess } from '@sieve/testkit/clickhouse-http'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'

/*
 * The production topology, each role a process of its own: `sieve collector`, `sieve ingester`,
 * `sieve scorer` and `sieve dashboard` over one Kafka broker and one ClickHouse reached over HTTP
 * (CLICKHOUSE_URL: the testkit's stand-in, itself a child process, since chDB lets one process open
 * a data directory), after `sieve migrate`. kafka-roles.test.ts covers each role's refusals and the
 * collector's records; this is the whole path through all of them.
 */

const N = 50
const dir = mkdtempSync(join(tmpdir(), 'sieve-split-roles-'))
let brokers: string[]
let release: (() => Promise<void>) | undefined
let clickhouse: ClickHouseHttpProcess | undefined
let storage: Storage | undefined
const children = new Set<ChildProcess>()

before(async () => {
  ;({ brokers, release } = await sharedBrokers())
  clickhouse = await spawnClickHouseHttp({ path: join(dir, 'engine') })
})
after(async () => {
  // A failed run must not leave a role behind (it would keep the test process alive).
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await storage?.close()
  await clickhouse?.close()
  await release?.()
  rmSync(dir, { recursive: true, force: true })
})

test(`collector, ingester, scorer and dashboard as separate processes over Kafka and ClickHouse over HTTP: ${N} traces stored, rolled up, scored, charted`, async () => {
  const kafka = uniqueKafkaSettings(brokers, 2)
  const configFile = join(dir, 'sieve.json')
  writeFileSync(configFile, JSON.stringify({ checks: checksSection, scorer: { quietPeriodMs: 500, tickMs: 100, group: `scorer-${randomUUID().slice(0, 8)}` } }))
  const env = {
    CLICKHOUSE_URL: clickhouse!.url,
    // Nothing may land here: with CLICKHOUSE_URL no role opens the embedded store.
    SIEVE_DATA_DIR: join(dir, 'unused'),
    SIEVE_CONFIG_FILE: configFile,
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_SPANS_TOPIC: kafka.spansTopic,
    KAFKA_SCORES_TOPIC: kafka.scoresTopic,
    KAFKA_DEAD_LETTER_TOPIC: kafka.deadLetterTopic,
    KAFKA_TOPIC_PARTITIONS: String(kafka.partitions),
  }
  const sieve = (command: string): SieveProcess => {
    const run = spawnSieve(command, env)
    children.add(run.child)
    return run
  }

  const migrate = sieve('migrate')
  const [migrated] = await once(migrate.child, 'exit')
  assert.equal(migrated, 0, migrate.output())
  assert.match(migrate.output(), /applied: 0001_spans/)

  const roles = { collector: sieve('collector'), ingester: sieve('ingester'), scorer: sieve('scorer'), dashboard: sieve('dashboard') }
  const [collectorUrl, , , dashboardUrl] = await Promise.all([
    printed(roles.collector, /OTLP\/HTTP traces:\s+(http:\/\/\S+)\/v1\/traces/, 'the collector banner'),
    roleMetricsUrl(roles.ingester, 'ingester'),
    roleMetricsUrl(roles.scorer, 'scorer'),
    printed(roles.dashboard, /Query API:\s+(http:\/\/\S+)\/api\/quality/, 'the dashboard banner'),
  ])
  for (const role of ['collector', 'ingester', 'scorer'] as const) assert.match(roles[role].output(), new RegExp(`Storage:\\s+${clickhouse!.url}`))

  // Fifty agent runs, ten of each scenario, each sent as the SDK's exporter would: one OTLP request.
  const kinds = [scenarios.refundOutsidePolicy, scenarios.refundHandledWell, scenarios.toolLoop, scenarios.piiEchoed, scenarios.schemaBreakingOutput]
  const runs = Array.from({ length: N }, (_, i) => kinds[i % kinds.length]!())
  const traceIds = runs.map((r) => r.trace().traceId)
  const spans = runs.reduce((n, r) => n + r.trace().spans.length, 0)
  assert.equal(new Set(traceIds).size, N)
  for (const run of runs) {
    const res = await fetch(`${collectorUrl}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: run.otlpProtobuf() })
    assert.equal(res.status, 200, await res.text())
  }

  const opened = await createStorage({ kind: 'server', url: clickhouse!.url, database: 'sieve' })
  storage = opened
  const count = (query: string) => countRows(opened, query)
  const ours = `trace_id IN (${traceIds.map((t) => `'${t}'`).join(', ')})`
  const everything = async () => ({
    spans: await count(`SELECT count() FROM spans FINAL WHERE ${ours}`),
    traces: await count(`SELECT count() FROM traces FINAL WHERE ${ours}`),
    scored: await count(`SELECT uniqExact(trace_id) FROM scores FINAL WHERE kind = 'deterministic' AND ${ours}`),
  })
  let got = { spans: 0, traces: 0, scored: 0 }
  try {
    await until(
      'every span stored, every trace rolled up and scored',
      async () => {
        got = await everything()
        return got.spans === spans && got.traces === N && got.scored === N
      },
      90_000,
    )
  } catch (err) {
    throw new Error(
      `${(err as Error).message}: ${JSON.stringify(got)} of ${JSON.stringify({ spans, traces: N, scored: N })}\n${Object.entries(roles)
        .map(([r, p]) => `--- ${r}\n${p.output()}`)
        .join('\n')}`,
    )
  }
  // Each check once per trace: the scorer's writes reach the server once however its batches fell.
  assert.equal(await count(`SELECT count() - uniqExact(trace_id, scorer_name) FROM scores FINAL WHERE kind = 'deterministic' AND ${ours}`), 0)
  assert.equal(await count(`SELECT countIf(passed = 0) FROM scores FINAL WHERE scorer_name = 'prohibited_tools' AND ${ours}`), N / kinds.length)

  // The rollups behind the chart are written by the same inserts as the scores, and are readable a moment after them.
  type Quality = { traces: number[]; series: { check: string; scored: number[] }[] }
  const sum = (xs: number[] = []) => xs.reduce((a, b) => a + b, 0)
  let quality: Quality = { traces: [], series: [] }
  const charted = () => ({ traces: sum(quality.traces), prohibitedToolsScored: sum(quality.series.find((s) => s.check === 'prohibited_tools')?.scored) })
  // The four support scenarios are held to the tool policy, the triage one is not.
  const expected = { traces: N, prohibitedToolsScored: (N / kinds.length) * 4 }
  try {
    await until(
      'the dashboard to chart every trace',
      async () => {
        quality = (await (await fetch(`${dashboardUrl}/api/quality?kind=deterministic`)).json()) as Quality
        return JSON.stringify(charted()) === JSON.stringify(expected)
      },
      20_000,
    )
  } catch (err) {
    const latest = await (
      await opened.query({
        query: `SELECT scorer_name, count() AS rows, uniqExact(trace_id) AS traces FROM scores WHERE kind = 'deterministic' AND ${ours} GROUP BY scorer_name`,
        format: 'JSONEachRow',
      })
    ).json()
    throw new Error(`${(err as Error).message}: ${JSON.stringify(charted())}, expected ${JSON.stringify(expected)}; scores ${JSON.stringify(latest)}`)
  }
  const worst = (await (await fetch(`${dashboardUrl}/api/worst?check=prohibited_tools&limit=200`)).json()) as { traces: { traceId: string }[] }
  assert.deepEqual(new Set(worst.traces.map((t) => t.traceId)), new Set(traceIds.filter((_, i) => i % kinds.length === 0)))

  for (const [role, run] of Object.entries(roles)) {
    if (run.child.exitCode === null) run.child.kill('SIGTERM')
    const exited = run.child.exitCode !== null ? [run.child.exitCode] : await once(run.child, 'exit')
    assert.equal(exited[0], 0, `sieve ${role}:\n${run.output()}`)
  }
})
