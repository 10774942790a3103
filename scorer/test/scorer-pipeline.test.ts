// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { insertSpans, migrate, readTrace, type Span } from '@sieve/core'
import { Registry } from 'prom-client'
import { AgentRecorder } from '@sieve/testkit/agent-trace'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { clickhouseScoreSink, resolveChecksConfig, type ScoreSink } from '@sieve/scoring'
import { createScorerMetrics, Scorer } from '../src/index.js'

// One engine for the whole file (chDB allows one on-disk path per process), embedded or over HTTP (SIEVE_TEST_STORAGE).
let store: TestStorage
let storage: Storage
before(async () => {
  store = await openTestStorage({ path: mkdtempSync(join(tmpdir(), 'sieve-scorer-')) })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
})
after(async () => {
  await store.close()
})

const checks = resolveChecksConfig(checksSection)

async function rows<T>(query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  return (await storage.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>()
}

async function startScorer(sink: ScoreSink, extra: Partial<Parameters<typeof Scorer.start>[0]> = {}) {
  const clock = { ms: 0 }
  const queue = new InProcessQueue({ lingerMs: 0, gates: ['scorer'] })
  const registry = new Registry()
  const scorer = await Scorer.start({
    queue,
    sink,
    checks,
    now: () => clock.ms,
    metrics: createScorerMetrics(registry),
    options: { quietPeriodMs: 3000, tickMs: 3_600_000 },
    ...extra,
  })
  return { queue, scorer, clock, registry }
}

function traces(n: number, project: string): Span[][] {
  return Array.from({ length: n }, (_, i) => {
    const make = Object.values(scenarios)[i % Object.values(scenarios).length]!
    return make().spans(project)
  })
}

test('N traces sent become N traces scored, each check stored once with its evaluation fields', async () => {
  const { queue, scorer, clock, registry } = await startScorer(clickhouseScoreSink(storage))
  const sent = traces(21, 'coverage')
  // Interleave the traces' spans, children before roots, as concurrent agents would send them.
  const all = sent.flat().sort((a, b) => (a.parentSpanId === '' ? 1 : 0) - (b.parentSpanId === '' ? 1 : 0) || a.spanId.localeCompare(b.spanId))
  for (let i = 0; i < all.length; i += 7) await queue.publish(all.slice(i, i + 7))
  clock.ms += 3000
  assert.equal(await scorer.tick(), 21)
  // Delivered again within the same scorer: already scored, nothing happens.
  await queue.publish(sent[0]!)
  clock.ms += 3000
  assert.equal(await scorer.tick(), 0)
  await scorer.stop()
  await queue.close()
  // A new scorer is handed everything again (as after a crash before the commit): re-scored, replacing.
  const restarted = await startScorer(clickhouseScoreSink(storage))
  for (const spans of sent) await restarted.queue.publish(spans)
  restarted.clock.ms += 3000
  assert.equal(await restarted.scorer.tick(), 21)
  await restarted.scorer.stop()
  await restarted.queue.close()

  const [counts] = await rows<{ traces: string; rows: string; dupes: string }>(
    `SELECT uniqExact(trace_id) AS traces, count() AS rows,
            count() - uniqExact(trace_id, scorer_name, scorer_version) AS dupes
     FROM scores FINAL WHERE project_id = 'coverage'`,
  )
  assert.equal(Number(counts!.traces), 21)
  assert.equal(Number(counts!.dupes), 0)
  const refund = sent[0]![0]!.traceId
  const stored = await rows<Record<string, string | number>>(
    `SELECT scorer_name, kind, scorer_version, passed, value, evaluation_name, evaluation_label, evaluation_explanation, config_hash,
            service_name, model, toUnixTimestamp64Nano(trace_start_time) AS start
     FROM scores FINAL WHERE project_id = 'coverage' AND trace_id = {t:String} AND scorer_name = 'prohibited_tools'`,
    { t: refund },
  )
  assert.equal(stored.length, 1)
  const row = stored[0]!
  assert.equal(row.kind, 'deterministic')
  assert.equal(row.passed, 0)
  assert.equal(row.evaluation_name, 'prohibited_tools')
  assert.equal(row.evaluation_label, 'fail')
  assert.match(String(row.evaluation_explanation), /^prohibited tool process_refund called in span [0-9a-f]{16}/)
  assert.equal(row.config_hash, checks.profileFor('support', '').checks.find((c) => c.check.name === 'prohibited_tools')!.configHash)
  assert.equal(row.service_name, 'support')
  assert.equal(row.model, 'gpt-4o-mini-2024-07-18')
  // biome-ignore lint/complexity/useMathMinMax: the times are BigInts, which Math.min does not take
  const firstStart = sent[0]!.map((s) => BigInt(s.startTimeUnixNano)).reduce((a, b) => (a < b ? a : b))
  assert.equal(String(row.start), firstStart.toString())

  const metrics = await registry.getMetricsAsJSON()
  const scored = metrics.find((m) => m.name === 'sieve_scored_traces_total')!.values.reduce((n, v) => n + v.value, 0)
  assert.equal(scored, 21)
  const results = metrics.find((m) => m.name === 'sieve_check_results_total')!.values
  assert.ok(results.some((v) => v.labels.check === 'prohibited_tools' && v.labels.outcome === 'failed' && v.value === 3))
})

test("a trace's environment (deployment.environment.name) is stored with its scores and counted under it in the rollups", async () => {
  const { queue, scorer, clock } = await startScorer(clickhouseScoreSink(storage))
  const [staged, unnamed] = traces(2, 'environments')
  for (const span of staged!) span.resource = { ...span.resource, 'deployment.environment.name': 'staging' }
  await queue.publish([...staged!, ...unnamed!])
  clock.ms += 3000
  assert.equal(await scorer.tick(), 2)
  await scorer.stop()
  await queue.close()
  const stored = await rows<{ trace_id: string; environments: string[] }>(
    `SELECT trace_id, groupUniqArray(environment) AS environments FROM scores FINAL WHERE project_id = 'environments' GROUP BY trace_id ORDER BY trace_id`,
  )
  assert.deepEqual(Object.fromEntries(stored.map((r) => [r.trace_id, r.environments])), { [staged![0]!.traceId]: ['staging'], [unnamed![0]!.traceId]: [''] })
  const rolled = await rows<{ environment: string; traces: string }>(
    `SELECT environment, count() AS traces FROM (SELECT trace_id, any(environment) AS environment FROM trace_quality WHERE project_id = 'environments' GROUP BY trace_id) GROUP BY environment ORDER BY environment`,
  )
  assert.deepEqual(
    rolled.map((r) => [r.environment, Number(r.traces)]),
    [
      ['', 1],
      ['staging', 1],
    ],
  )
  const [scored] = await rows<{ n: string }>(`SELECT sum(scored) AS n FROM quality_5m WHERE project_id = 'environments' AND environment = 'staging'`)
  assert.ok(Number(scored!.n) > 0)
})

test('a late span re-scores its trace and the new scores replace the old ones', async () => {
  const { queue, scorer, clock } = await startScorer(clickhouseScoreSink(storage))
  const r = new AgentRecorder('support')
  r.agent('hi', () => r.llm({ user: 'hi', text: 'Hello! How can I help?' }), 'Hello! How can I help?')
  const spans = r.spans('late')
  await queue.publish(spans)
  clock.ms += 3000
  assert.equal(await scorer.tick(), 1)
  // A tool span of the same trace turns up after scoring, in error.
  const late: Span = {
    ...spans[0]!,
    spanId: 'aaaaaaaaaaaaaaaa',
    parentSpanId: spans.find((s) => !s.parentSpanId)!.spanId,
    name: 'execute_tool lookup_order',
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' },
    status: { code: 'ERROR', message: 'timeout' },
  }
  await queue.publish([late])
  clock.ms += 3000
  assert.equal(await scorer.tick(), 1)
  await scorer.stop()
  await queue.close()
  const stored = await rows<{ scorer_name: string; passed: number; n: string }>(
    `SELECT scorer_name, any(passed) AS passed, count() AS n FROM scores FINAL WHERE project_id = 'late' GROUP BY scorer_name ORDER BY scorer_name`,
  )
  assert.ok(stored.every((s) => Number(s.n) === 1))
  assert.equal(stored.find((s) => s.scorer_name === 'tool_errors')?.passed, 0)
  assert.equal(stored.find((s) => s.scorer_name === 'trace_complete')?.passed, 1)
})

test('a trace closed without its root is completed from storage before scoring', async () => {
  const r = scenarios.truncatedAnswer()
  const spans = r.spans('restart')
  await insertSpans(storage, spans) // the ingester stored the whole trace
  const { queue, scorer, clock } = await startScorer(clickhouseScoreSink(storage), {
    loadStoredTrace: (projectId, traceId) => readTrace(storage, projectId, traceId),
    options: { quietPeriodMs: 3000, maxTraceAgeMs: 10_000, tickMs: 3_600_000 },
  })
  // After a restart only the spans past the last commit come again: one child, no root.
  await queue.publish(spans.filter((s) => s.parentSpanId !== '').slice(-1))
  clock.ms += 10_000
  assert.equal(await scorer.tick(), 1)
  await scorer.stop()
  await queue.close()
  const stored = await rows<{ scorer_name: string; passed: number }>(
    `SELECT scorer_name, passed FROM scores FINAL WHERE project_id = 'restart' AND scorer_name IN ('trace_complete', 'truncation') ORDER BY scorer_name`,
  )
  assert.deepEqual(
    stored.map((s) => [s.scorer_name, s.passed]),
    [
      ['trace_complete', 1],
      ['truncation', 0],
    ],
  )
})

test('a failed score write is retried and the offsets wait for it', async () => {
  let fail = true
  const written: string[] = []
  const sink: ScoreSink = {
    async write(records) {
      if (fail) throw new Error('storage down')
      written.push(...new Set(records.map((r) => r.traceId)))
    },
  }
  const { queue, scorer, clock } = await startScorer(sink)
  await queue.publish(scenarios.refundHandledWell().spans('retry'))
  clock.ms += 3000
  assert.equal(await scorer.tick(), 0)
  assert.equal(scorer.assembler.commitPoints().size, 0)
  fail = false
  assert.equal(await scorer.tick(), 1)
  assert.equal(written.length, 1)
  await scorer.stop()
  await queue.close()
})
