import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Storage } from '@sieve/core'
import type { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import {
  createStorage,
  insertSpans,
  listTraces,
  loadConfig,
  loadMigrations,
  migrate,
  migrationsApplied,
  readTrace,
  readTraces,
  refreshTraceRollups,
  StorageError,
  type Config,
  type Span,
} from '@sieve/core'
import { worst, worstQuery } from '@sieve/dashboard'
import { createScrubber, exportDataset, parseDataset, sinceUnixNano } from '@sieve/dataset'
import { clickhouseScoreSink, loadChecksConfig, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { pollFeedback } from '@sieve/judge'
import { countRows, makeSpan, makeTraces, until } from '@sieve/testkit'
import { openTestStorage, spawnClickHouseHttp, startClickHouseHttp, type ClickHouseHttpProcess, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { collectorPart, ingesterPart, scorerPart, type RunningPart, type UpContext } from '../src/parts.js'
import { openQueue } from '../src/queue.js'
import { runSieve } from './support/run-sieve.js'

/*
 * The server path (`CLICKHOUSE_URL`): Sieve's storage code over @clickhouse/client's HTTP transport,
 * against the testkit's ClickHouse HTTP stand-in (chDB behind ClickHouse's HTTP interface, in this
 * process). What `sieve up` does with CLICKHOUSE_URL set and no Kafka: migrations, the ingester's
 * inserts and rollup, the scorer's scores and start-up reads, the dashboard's queries, export.
 * The Kafka roles as separate processes on one server are split-roles.test.ts.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-server-path-'))
let store: TestStorage
let storage: Storage
let config: Config
before(async () => {
  store = await openTestStorage({ path: join(dir, 'engine'), kind: 'http' })
  storage = store.storage
  const file = join(dir, 'sieve.json')
  writeFileSync(file, JSON.stringify({ checks: checksSection, scorer: { quietPeriodMs: 300, tickMs: 100 } }))
  config = loadConfig({
    CLICKHOUSE_URL: store.server!.url,
    SIEVE_CONFIG_FILE: file,
    SIEVE_DATA_DIR: join(dir, 'data'),
    SIEVE_HOST: '127.0.0.1',
    SIEVE_PORT: '0',
  })
})
after(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

const names = (rows: { name: string }[]) => rows.map((r) => r.name)

describe('storage over HTTP', () => {
  test('every migration applies over HTTP, once; a changed retention rewrites the TTLs', async () => {
    assert.equal(config.clickhouse.kind, 'server')
    const first = await migrate(storage, { retentionDays: 30 })
    assert.deepEqual(
      first.applied,
      loadMigrations().map((m) => `${m.version}_${m.name}`),
    )
    assert.deepEqual(await migrate(storage, { retentionDays: 30 }), { applied: [], retentionUpdated: [] })
    assert.equal(await migrationsApplied(storage), true)
    assert.ok((await migrate(storage, { retentionDays: 7 })).retentionUpdated.includes('spans'))
    assert.ok((await migrate(storage, { retentionDays: 30 })).retentionUpdated.includes('spans'))
    const tables = await (
      await storage.query({ query: 'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name', format: 'JSONEachRow' })
    ).json<{ name: string }>()
    assert.ok(
      ['spans', 'traces', 'scores', 'score_latest', 'quality_5m', 'dead_letters', 'progress', 'exports'].every((t) => names(tables).includes(t)),
      names(tables).join(' '),
    )
    assert.ok(store.server!.stats().statements > 0, 'the statements went through the stand-in')
  })

  test("a user that may only read (a dashboard's) opens the database that exists; one that cannot is told what was refused", async () => {
    // A second stand-in on the same engine, whose user `reader` has a read-only profile.
    const server = await startClickHouseHttp({ path: join(dir, 'engine'), users: { reader: { password: 'r', readonly: 1 } } })
    try {
      const open = (database: string, password = 'r') => createStorage({ kind: 'server', url: server.url, username: 'reader', password, database })
      const reader = await open('sieve')
      try {
        assert.equal(await migrationsApplied(reader), true)
        assert.ok(Array.isArray(await listTraces(reader, 'default', { limit: 1 })))
      } finally {
        await reader.close()
      }
      const refused = async (database: string, password?: string) =>
        (await open(database, password).then(
          () => undefined,
          (e: unknown) => e,
        )) as Error
      const missing = await refused('nowhere')
      assert.ok(missing instanceof StorageError)
      assert.match(missing.message, /^ClickHouse at http:\/\/127\.0\.0\.1:\d+ refused to open database nowhere: .*READONLY/)
      assert.match((await refused('sieve', 'wrong')).message, /refused to open database sieve: .*AUTHENTICATION_FAILED/)
    } finally {
      await server.close()
    }
  })

  test('spans read back field for field; a re-delivered span is read and rolled up once', async () => {
    const awkward = 'it\'s\t"quoted"\n back\\slash \\N ünï 🦀 ;'
    const root = makeSpan({
      name: awkward,
      attributes: { text: awkward, n: 3, ok: true, list: ['a', 1], nested: { a: [awkward] }, 'gen_ai.operation.name': 'invoke_agent' },
    })
    const child = makeSpan({ traceId: root.traceId, parentSpanId: root.spanId, events: [], links: [] })
    await insertSpans(storage, [root, child])
    await insertSpans(storage, [child])
    await refreshTraceRollups(storage, [{ projectId: root.projectId, traceId: root.traceId }])
    const trace = await readTrace(storage, root.projectId, root.traceId)
    assert.deepEqual(
      trace?.spans,
      [root, child].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1)),
    )
    const [summary] = (await listTraces(storage, root.projectId, { limit: 1000 })).filter((t) => t.traceId === root.traceId)
    assert.equal(summary?.spanCount, 2)
    assert.equal(summary?.rootName, awkward)
  })

  test('thousands of trace ids in one read and one rollup: parameters in the URL, literals in the body', async () => {
    const spans = makeTraces(3000, 1)
    for (let i = 0; i < spans.length; i += 1000) await insertSpans(storage, spans.slice(i, i + 1000))
    const keys = spans.map((s) => ({ projectId: s.projectId, traceId: s.traceId }))
    await refreshTraceRollups(storage, keys)
    assert.equal(
      await countRows(storage, `SELECT count() FROM traces FINAL WHERE trace_id IN (SELECT trace_id FROM spans WHERE name = 'invoke_agent support')`),
      3000,
    )
    const read = await readTraces(
      storage,
      'default',
      spans.slice(0, 2000).map((s) => s.traceId),
    )
    assert.equal(read.length, 2000)
  })
})

describe("sieve up's parts over HTTP (CLICKHOUSE_URL, in-process queue)", () => {
  const recorded = [
    scenarios.refundOutsidePolicy(),
    scenarios.refundHandledWell(),
    scenarios.toolLoop(),
    scenarios.piiEchoed(),
    scenarios.schemaBreakingOutput(),
  ]
  const traceIds = recorded.map((r) => r.trace().traceId)
  const spanCount = recorded.reduce((n, r) => n + r.trace().spans.length, 0)
  let running: RunningPart[] = []
  let url = ''

  before(async () => {
    await migrate(storage, { retentionDays: 30 })
    const metrics = createPipelineMetrics()
    // Errors only, on stderr: what the parts tell an operator is not what this test is about.
    const quiet = () => {}
    const log: Record<string, unknown> = { debug: quiet, info: quiet, warn: quiet, error: (message: string) => console.error(message) }
    log.child = () => log
    // Built as `sieve up` builds it: a publish waits for the ingester, refused spans go to dead_letters.
    const queue = (await openQueue(config, metrics, 'up', log as unknown as UpContext['log'], storage)) as InProcessQueue
    const context = { config, storage, queue, queueHeld: queue, metrics, log: log as unknown as UpContext['log'] }
    for (const part of [ingesterPart, scorerPart, collectorPart]) running.push(await part(context))
    url = running.find((p) => p.url)!.url!
    running.push({ name: 'queue', stop: () => queue.close() })
  })
  after(async () => {
    for (const part of running.reverse()) await part.stop()
    running = []
  })

  const count = (query: string) => countRows(storage, query)
  const inList = `(${traceIds.map((t) => `'${t}'`).join(', ')})`

  test('spans sent over OTLP are stored, rolled up and scored', async () => {
    for (const r of recorded) {
      const res = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: r.otlpProtobuf() })
      assert.equal(res.status, 200, await res.text())
    }
    await until(
      'every trace scored',
      async () => (await count(`SELECT uniqExact(trace_id) FROM scores FINAL WHERE kind = 'deterministic' AND trace_id IN ${inList}`)) === traceIds.length,
      30_000,
    )
    assert.equal(await count(`SELECT count() FROM spans FINAL WHERE trace_id IN ${inList}`), spanCount)
    // The ingester rewrites the rollup at most every 2 s: the traces sent after the first wait for the next rewrite.
    await until('every trace rolled up', async () => (await count(`SELECT count() FROM traces FINAL WHERE trace_id IN ${inList}`)) === traceIds.length, 30_000)
    assert.equal(await count(`SELECT countIf(passed = 0) FROM scores FINAL WHERE scorer_name = 'prohibited_tools' AND trace_id = '${traceIds[0]}'`), 1)
  })

  test('the dashboard answers /api/quality and /api/worst from the rollups', async () => {
    const quality = (await (await fetch(`${url}/api/quality?interval=1h&kind=deterministic`)).json()) as {
      series: { check: string; scored: number[] }[]
      traces: number[]
    }
    const prohibited = quality.series.find((s) => s.check === 'prohibited_tools')
    assert.ok(prohibited, JSON.stringify(quality).slice(0, 500))
    assert.ok(prohibited.scored.reduce((a, b) => a + b, 0) >= 2, JSON.stringify(quality))
    assert.ok(quality.traces.reduce((a, b) => a + b, 0) >= traceIds.length)
    const worst = (await (await fetch(`${url}/api/worst?check=prohibited_tools`)).json()) as { traces: { traceId: string; failedChecks: string[] }[] }
    assert.deepEqual(
      worst.traces.map((t) => t.traceId),
      [traceIds[0]],
    )
    assert.ok(worst.traces[0]!.failedChecks.includes('prohibited_tools'))
    const detail = await fetch(`${url}/api/traces/${traceIds[0]}`)
    assert.equal(detail.status, 200)
  })

  test('export writes the failing trace as a scrubbed golden example and records it', async () => {
    const out = join(dir, 'golden.jsonl')
    const options = {
      out,
      projectId: 'default',
      failed: 'prohibited_tools',
      sinceUnixNano: sinceUnixNano('1d')!,
      limit: 10,
      bucket: 'known-failure' as const,
      reviewAfterDays: 90,
      checks: await loadChecksConfig(config.sections),
      scrubber: createScrubber(),
    }
    const report = await exportDataset(storage, { ...options, dryRun: false })
    assert.deepEqual(
      report.added.map((a) => a.traceId),
      [traceIds[0]],
    )
    const { examples, problems } = parseDataset(readFileSync(out, 'utf8'))
    assert.deepEqual([examples.length, problems], [1, []])
    assert.equal(await count(`SELECT count() FROM exports WHERE trace_id = '${traceIds[0]}'`), 1)
    assert.deepEqual((await exportDataset(storage, { ...options, dryRun: false })).added, [], 'exported once')
  })

  test('a span the server refuses is dead-lettered naming the ClickHouse error, the others stored', async () => {
    await storage.command({ query: "ALTER TABLE spans ADD CONSTRAINT server_path_test CHECK name != 'refused by the server'" })
    try {
      const refused: Span = makeSpan({ name: 'refused by the server' })
      const kept = makeSpan()
      const res = await fetch(`${url}/v1/traces`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(otlpJson([refused, kept])),
      })
      assert.equal(res.status, 200)
      const partial = ((await res.json()) as { partialSuccess?: { rejectedSpans: string; errorMessage: string } }).partialSuccess
      assert.match(partial?.errorMessage ?? '', /storage refused it \(ClickHouse error 469 VIOLATED_CONSTRAINT\)/)
      const [letter] = await (
        await storage.query({
          query: `SELECT error FROM dead_letters WHERE span_id = {id:String}`,
          query_params: { id: refused.spanId },
          format: 'JSONEachRow',
        })
      ).json<{ error: string }>()
      assert.match(
        letter?.error ?? '',
        /^Code: 469\. DB::Exception: Constraint `server_path_test` .* \(VIOLATED_CONSTRAINT\)$/s,
        'the dead letter says which error it was, as on the embedded engine',
      )
      assert.equal((await readTrace(storage, 'default', kept.traceId))?.spans.length, 1)
    } finally {
      await storage.command({ query: 'ALTER TABLE spans DROP CONSTRAINT server_path_test' })
    }
  })
})

/*
 * A server need not run in UTC, and ClickHouse reads a date-time given as text in the server's
 * timezone unless told otherwise: the dashboard's ranges and the judge's feedback poll say UTC.
 */
describe('a server in another timezone (Asia/Tokyo, UTC+9)', () => {
  let server: ClickHouseHttpProcess
  let tokyo: Storage
  before(async () => {
    // chDB takes its timezone from the process: the stand-in runs as a child with TZ set.
    server = await spawnClickHouseHttp({ path: join(dir, 'tokyo'), env: { TZ: 'Asia/Tokyo' } })
    tokyo = await createStorage({ kind: 'server', url: server.url, database: 'sieve' })
    await migrate(tokyo, { retentionDays: 30 })
  })
  after(async () => {
    await tokyo?.close()
    await server?.close()
  })

  test('the worst-traces list covers the range asked for, the last minute included', async () => {
    const trace = scenarios.refundOutsidePolicy().trace()
    await clickhouseScoreSink(tokyo).write(traceScoreRecords(scoreTrace(trace, resolveChecksConfig(checksSection))))
    const listed = await worst(tokyo, 'default', worstQuery.parse({}))
    assert.deepEqual(
      listed.map((t) => t.traceId),
      [trace.traceId],
    )
  })

  test("feedback stored after the judge's last read is read by its next one", async () => {
    const seen: string[] = []
    const poller = pollFeedback(
      tokyo,
      (rows) => {
        for (const r of rows) seen.push(r.traceId)
      },
      { intervalMs: 3_600_000 },
    )
    const give = (traceId: string) =>
      tokyo.insert({ table: 'feedback', format: 'JSONEachRow', values: [{ project_id: 'default', trace_id: traceId, feedback_id: traceId, score: 0 }] })
    try {
      await poller.poll()
      await give('a'.repeat(32))
      await poller.poll()
      await give('b'.repeat(32))
      await poller.poll()
      await poller.poll()
    } finally {
      poller.stop()
    }
    assert.deepEqual(seen, ['a'.repeat(32), 'b'.repeat(32)])
  })
})

test('`sieve migrate --print` shows the schema without connecting; `--cluster` gives the cluster form', async () => {
  const dataDir = join(mkdtempSync(join(tmpdir(), 'sieve-print-')), 'never-created')
  const env = { ...process.env, SIEVE_DATA_DIR: dataDir }
  const single = await runSieve(['migrate', '--print'], env)
  assert.equal(single.code, 0, single.stderr)
  assert.match(single.stdout, /^-- 0001_spans$/m)
  assert.match(single.stdout, /CREATE TABLE IF NOT EXISTS spans\n/)
  assert.doesNotMatch(single.stdout, /ON CLUSTER|Distributed/)
  const cluster = await runSieve(['migrate', '--print', '--cluster', 'sieve_cluster'], env)
  assert.equal(cluster.code, 0, cluster.stderr)
  assert.match(cluster.stdout, /CREATE TABLE IF NOT EXISTS spans_local ON CLUSTER sieve_cluster\n/)
  assert.match(
    cluster.stdout,
    /CREATE TABLE IF NOT EXISTS spans ON CLUSTER sieve_cluster AS spans_local ENGINE = Distributed\(sieve_cluster, currentDatabase\(\), spans_local, cityHash64\(trace_id\)\);/,
  )
  assert.match(cluster.stdout, /TTL toDateTime\(greatest\(start_time, ingested_at\)\) \+ INTERVAL 30 DAY;/)
  assert.throws(() => readFileSync(dataDir), /ENOENT/)
})

/** Spans as an OTLP/JSON export request (one resource, one scope). */
function otlpJson(spans: Span[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'server-path' } }] },
        scopeSpans: [
          {
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId,
              name: s.name,
              kind: 1,
              startTimeUnixNano: s.startTimeUnixNano,
              endTimeUnixNano: s.endTimeUnixNano,
            })),
          },
        ],
      },
    ],
  }
}
