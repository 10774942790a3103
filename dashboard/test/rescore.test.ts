// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Storage } from '@sieve/core'
import { insertSpans, readTrace, refreshTraceRollups, type Span } from '@sieve/core'
import { clickhouseScoreSink, loadChecksConfig, scoreRow, scoreTrace, traceScoreRecords, type ChecksConfig, type ScoreRecord } from '@sieve/scoring'
import { compare, quality, traceQuality, worst, worstQuery } from '../src/index.js'
import { compareQuery, qualityQuery } from '../src/params.js'
import { openEngine } from './support/engine.js'
import { traceId } from './support/seed.js'

/*
 * Twelve agent traces in one hour, scored by the real scorer (readTrace → scoreTrace → the scores
 * sink, what `sieve score` does), plus judge scores on four of them. Versions v1 (even traces) and v2
 * (odd); traces 1, 3, 5 and 6 call process_refund, which fails prohibited_tools.
 */
const H = new Date('2026-11-20T10:00:00Z')
const at = (minute: number) => new Date(H.getTime() + minute * 60_000)
const TRACES = 12
const REFUNDS = new Set([1, 3, 5, 6])
const version = (i: number) => (i % 2 ? 'support-agent@2' : 'support-agent@1')
const ids = Array.from({ length: TRACES }, (_, i) => traceId(i, 'd'))
const range = { from: H.toISOString(), to: at(120).toISOString() }

function spansOf(i: number): Span[] {
  const start = BigInt(at(i * 4).getTime()) * 1_000_000n
  const base: Omit<Span, 'spanId' | 'parentSpanId' | 'name' | 'startTimeUnixNano' | 'endTimeUnixNano' | 'attributes'> = {
    projectId: 'default',
    traceId: ids[i]!,
    traceState: '',
    kind: 'INTERNAL',
    flags: 1,
    serviceName: 'support-api',
    scope: { name: 'test', version: '1', attributes: {} },
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    status: { code: 'OK', message: '' },
  }
  const root: Span = {
    ...base,
    spanId: `${i.toString(16).padStart(4, '0')}000000000001`,
    parentSpanId: '',
    name: 'invoke_agent support-agent',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 900_000_000n),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support-agent', 'gen_ai.agent.version': version(i) },
  }
  const tool = (name: string, n: number): Span => ({
    ...base,
    spanId: `${i.toString(16).padStart(4, '0')}00000000000${n}`,
    parentSpanId: root.spanId,
    name: `execute_tool ${name}`,
    startTimeUnixNano: String(start + BigInt(n) * 100_000_000n),
    endTimeUnixNano: String(start + BigInt(n) * 100_000_000n + 50_000_000n),
    attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'gen_ai.tool.call.arguments': '{"order":"A1"}' },
  })
  return [root, tool('lookup_order', 2), ...(REFUNDS.has(i) ? [tool('process_refund', 3)] : [])]
}

/** A judge dimension's score as the judge writes it, on the trace fields of a scored trace. */
function judgeRecord(of: ScoreRecord, value: number, extra: Partial<ScoreRecord> = {}): ScoreRecord {
  return {
    ...of,
    kind: 'judge',
    scorerName: 'accuracy',
    evaluationName: 'accuracy',
    scorerVersion: 'support-rubric@1',
    configHash: '',
    value,
    passed: value >= 0.6,
    detail: '{}',
    judgeModel: 'gpt-4.1-2025-04-14',
    rubricId: 'support-rubric',
    rubricVersion: '1',
    costUsd: 0.002,
    inputTokens: 900,
    outputTokens: 60,
    ...extra,
  }
}

let client: Storage
let checks: ChecksConfig
const sink = () => clickhouseScoreSink(client)

/** `sieve score` for each trace: the checks' records, as the scorer stores them. */
async function scoreAll(): Promise<ScoreRecord[]> {
  const written: ScoreRecord[] = []
  for (const id of ids) {
    const trace = await readTrace(client, 'default', id)
    assert.ok(trace, `trace ${id} is stored`)
    const records = traceScoreRecords(scoreTrace(trace, checks))
    await sink().write(records)
    written.push(...records)
  }
  return written
}

/** Every figure the dashboard shows over the seeded hour, from the rollups. */
async function figures() {
  return {
    by5m: await quality(client, 'default', qualityQuery.parse({ ...range, interval: '5m' })),
    byHour: await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h' })),
    byVersion: await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h', groupBy: 'agent_version' })),
    byCheckVersion: await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h', groupBy: 'check_version' })),
    v2Only: await quality(client, 'default', qualityQuery.parse({ ...range, interval: '15m', agent_version: 'support-agent@2' })),
    compare: await compare(client, 'default', compareQuery.parse({ ...range, a: 'support-agent@1', b: 'support-agent@2' })),
    worst: await worst(client, 'default', worstQuery.parse(range)),
    worstByJudge: await worst(client, 'default', worstQuery.parse({ ...range, sort: 'judge' })),
    worstOneCheck: await worst(client, 'default', worstQuery.parse({ ...range, check: 'prohibited_tools', agent_version: 'support-agent@2' })),
  }
}

const r6 = (x: number) => Math.round(x * 1e6) / 1e6

/** Totals of one check over the range: scored, passed, mean value (to 6 digits). */
function totals(report: Awaited<ReturnType<typeof quality>>, check: string, group = '') {
  const s = report.series.filter((x) => x.check === check && x.group === group)
  const scored = s.flatMap((x) => x.scored).reduce((a, b) => a + b, 0)
  const passed = s.flatMap((x) => x.scored.map((n, i) => n * (x.passRate[i] ?? 0))).reduce((a, b) => a + b, 0)
  const valueSum = s.flatMap((x) => x.scored.map((n, i) => n * (x.meanValue[i] ?? 0))).reduce((a, b) => a + b, 0)
  return { scored, passed: Math.round(passed), mean: scored ? r6(valueSum / scored) : null }
}

/** The same figures recounted from `scores` directly: the latest row per trace, kind, check and span. */
async function recount(): Promise<Map<string, { scored: number; passed: number }>> {
  const result = await client.query({
    query: `SELECT name, count() AS scored, sum(p) AS passed FROM (
              SELECT scorer_name AS name, argMax(passed, created_at) AS p, argMax(error, created_at) AS e FROM scores
              WHERE project_id = 'default' AND kind != 'calibration' GROUP BY trace_id, kind, scorer_name, span_id)
            WHERE e = '' GROUP BY name`,
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return new Map((await result.json<{ name: string; scored: number; passed: number }>()).map((r) => [r.name, { scored: r.scored, passed: r.passed }]))
}

async function assertMatchesRecount() {
  const report = await quality(client, 'default', qualityQuery.parse({ ...range, interval: '1h' }))
  const exact = await recount()
  assert.ok(exact.size > 1)
  for (const [name, { scored, passed }] of exact) {
    const t = totals(report, name)
    assert.deepEqual({ name, scored: t.scored, passed: t.passed }, { name, scored, passed })
  }
}

describe('dashboard figures when traces are scored again', () => {
  let first: ScoreRecord[]
  let baseline: Awaited<ReturnType<typeof figures>>

  before(async () => {
    client = await openEngine()
    checks = await loadChecksConfig({ checks: { agents: { 'support-agent': { prohibited_tools: { tools: ['process_refund'] } } } } })
    await insertSpans(
      client,
      ids.flatMap((_, i) => spansOf(i)),
    )
    await refreshTraceRollups(
      client,
      ids.map((id) => ({ projectId: 'default', traceId: id })),
    )
    first = await scoreAll()
    const judged = [0, 1, 2, 3].map((i) => first.find((r) => r.traceId === ids[i])!)
    await sink().write(judged.map((r, i) => judgeRecord(r, [0.8, 0.4, 1.0, 0.2][i]!)))
    baseline = await figures()
  })
  after(() => client.close())

  test('the seeded figures are the known answers', () => {
    const tools = totals(baseline.byHour, 'prohibited_tools')
    assert.deepEqual(tools, { scored: TRACES, passed: TRACES - REFUNDS.size, mean: r6((TRACES - REFUNDS.size) / TRACES) })
    assert.deepEqual(totals(baseline.byHour, 'accuracy'), { scored: 4, passed: 2, mean: 0.6 })
    assert.deepEqual(baseline.byHour.judgedTraces, [4, 0])
    assert.equal(Math.round(baseline.byHour.judgeCostUsd.reduce((a, b) => a + b, 0) * 1e6), 8000)
    const toolsCompare = baseline.compare.checks.find((c) => c.check === 'prohibited_tools')!
    assert.deepEqual([toolsCompare.a.scored, toolsCompare.a.passed, toolsCompare.b.scored, toolsCompare.b.passed], [6, 5, 6, 3])
    assert.deepEqual(baseline.worst.map((t) => t.traceId).sort(), [1, 3, 5, 6].map((i) => ids[i]).sort())
    assert.deepEqual(
      baseline.worstByJudge.map((t) => t.judgeMean),
      [0.2, 0.4, 0.8, 1.0],
    )
    assert.deepEqual(baseline.worstOneCheck.map((t) => t.traceId).sort(), [1, 3, 5].map((i) => ids[i]).sort())
  })

  test('scoring the same traces again leaves every dashboard figure unchanged', async () => {
    const again = await scoreAll()
    assert.equal(again.length, first.length)
    assert.deepEqual(await figures(), baseline)
    await assertMatchesRecount()
  })

  test('a crash re-delivery (the same score rows inserted again) leaves every dashboard figure unchanged', async () => {
    const rows = await (
      await client.query({
        query: `SELECT * EXCEPT created_at FROM scores FINAL WHERE project_id = 'default'`,
        format: 'JSONEachRow',
      })
    ).json<Record<string, unknown>>()
    assert.ok(rows.length > TRACES)
    // Once as a whole batch with every row twice in the same insert, then trace by trace.
    await client.insert({ table: 'scores', values: [...rows, ...rows], format: 'JSONEachRow' })
    for (const id of ids) await client.insert({ table: 'scores', values: rows.filter((r) => r.trace_id === id), format: 'JSONEachRow' })
    // Replayed byte for byte, created_at included: the same rows the table already holds.
    const exact = await (await client.query({ query: `SELECT * FROM scores FINAL WHERE project_id = 'default'`, format: 'JSONEachRow' })).json<
      Record<string, unknown>
    >()
    await client.insert({ table: 'scores', values: exact, format: 'JSONEachRow' })
    assert.deepEqual(await figures(), baseline)
    await assertMatchesRecount()
  })

  test('a score older than the one in effect, arriving late, changes nothing', async () => {
    const stale = first.filter((r) => r.traceId === ids[1] && r.scorerName === 'prohibited_tools').map((r) => ({ ...r, passed: true, value: 1 }))
    assert.equal(stale.length, 1)
    await client.insert({ table: 'scores', values: stale.map((r) => ({ ...scoreRow(r), created_at: '2026-11-20 10:00:00.000' })), format: 'JSONEachRow' })
    assert.deepEqual(await figures(), baseline)
  })

  test('a judgment made again replaces the first: new value, same count, cost counted once', async () => {
    const judged = [0, 1, 2, 3].map((i) => first.find((r) => r.traceId === ids[i])!)
    await sink().write(judged.map((r) => judgeRecord(r, 0.6)))
    const now = await figures()
    assert.deepEqual(totals(now.byHour, 'accuracy'), { scored: 4, passed: 4, mean: 0.6 })
    assert.deepEqual(now.byHour.judgedTraces, [4, 0])
    assert.equal(Math.round(now.byHour.judgeCostUsd.reduce((a, b) => a + b, 0) * 1e6), 8000)
    assert.deepEqual(
      now.worstByJudge.map((t) => [t.judgeScores, t.judgeMean, t.judgeFailed]),
      [
        [1, 0.6, []],
        [1, 0.6, []],
        [1, 0.6, []],
        [1, 0.6, []],
      ],
    )
    // A judge call that fails on the re-run is an error in effect, not a score: the trace is no longer judged.
    await sink().write([judgeRecord(judged[0]!, 0, { passed: false, error: 'judge timed out' })])
    const failed = await figures()
    assert.deepEqual(totals(failed.byHour, 'accuracy'), { scored: 3, passed: 3, mean: 0.6 })
    assert.deepEqual(failed.byHour.judgedTraces, [3, 0])
    assert.deepEqual(failed.byHour.series.find((s) => s.check === 'accuracy')!.errors, [1, 0])
    assert.equal(failed.worstByJudge.length, 3)
    await assertMatchesRecount()
  })

  test('a re-score with a new check version is counted once, under the new version', async () => {
    // A next version of prohibited_tools allows refunds: traces 1 and 3 pass now; every other trace keeps the version it had.
    const v1 = first.find((r) => r.scorerName === 'prohibited_tools')!.scorerVersion
    const v2 = String(Number(v1) + 1)
    const rescored = first
      .filter((r) => r.scorerName === 'prohibited_tools' && (r.traceId === ids[1] || r.traceId === ids[3]))
      .map((r) => ({ ...r, scorerVersion: v2, passed: true, value: 1 }))
    assert.equal(rescored.length, 2)
    await sink().write(rescored)
    const now = await figures()
    assert.deepEqual(totals(now.byHour, 'prohibited_tools'), { scored: TRACES, passed: TRACES - 2, mean: r6((TRACES - 2) / TRACES) })
    assert.deepEqual(totals(now.byCheckVersion, 'prohibited_tools', v2), { scored: 2, passed: 2, mean: 1 })
    assert.deepEqual(totals(now.byCheckVersion, 'prohibited_tools', v1), { scored: TRACES - 2, passed: TRACES - 4, mean: r6((TRACES - 4) / (TRACES - 2)) })
    assert.deepEqual(
      now.byCheckVersion.series
        .filter((s) => s.check === 'prohibited_tools')
        .map((s) => s.group)
        .sort(),
      [v1, v2].sort(),
    )
    const toolsCompare = now.compare.checks.find((c) => c.check === 'prohibited_tools')!
    assert.deepEqual([toolsCompare.b.scored, toolsCompare.b.passed], [6, 5])
    assert.deepEqual(now.worst.map((t) => t.traceId).sort(), [5, 6].map((i) => ids[i]).sort())
    assert.deepEqual(
      now.worstOneCheck.map((t) => t.traceId),
      [ids[5]],
    )
    // The trace view still shows every stored score of the trace, both versions.
    const detail = await traceQuality(client, 'default', ids[1]!)
    assert.deepEqual(
      detail.scores
        .filter((s) => s.name === 'prohibited_tools')
        .map((s) => [s.version, s.passed])
        .sort(),
      [
        [v1, false],
        [v2, true],
      ].sort(),
    )
    await assertMatchesRecount()
  })

  test('the worst list ranks traces by the scores in effect, also before the rollup rows are merged', async () => {
    const before = await figures()
    await client.command({ query: 'SYSTEM STOP MERGES trace_quality' })
    try {
      // The newest traces, 7 to 11, fail prohibited_tools and then pass it again on a re-score.
      const newest = first.filter((r) => r.scorerName === 'prohibited_tools' && ids.indexOf(r.traceId) >= 7)
      assert.equal(newest.length, 5)
      await sink().write(newest.map((r) => ({ ...r, passed: false, value: 0 })))
      await sink().write(newest.map((r) => ({ ...r, passed: true, value: 1 })))
      const top = await worst(client, 'default', worstQuery.parse({ ...range, limit: 1 }))
      assert.deepEqual(
        top.map((t) => [t.traceId, t.failedChecks]),
        [[ids[6], ['prohibited_tools']]],
      )
      assert.deepEqual(await figures(), before)
    } finally {
      await client.command({ query: 'SYSTEM START MERGES trace_quality' })
    }
  })
})
