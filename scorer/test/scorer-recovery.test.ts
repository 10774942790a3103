// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { insertSpans, migrate, readProgress, PROGRESS_SLACK_MS, type Span } from '@sieve/core'
import { Registry } from 'prom-client'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { createScorerMetrics, Scorer } from '../src/index.js'

/*
 * Start-up recovery on the embedded queue, which keeps nothing across a restart: what storage holds
 * unscored is read back and scored as the assembler would have scored it (issue #19).
 */

// One engine for the whole file (chDB allows one on-disk path per process), embedded or over HTTP (SIEVE_TEST_STORAGE).
let store: TestStorage
let storage: Storage
before(async () => {
  store = await openTestStorage({ path: mkdtempSync(join(tmpdir(), 'sieve-recovery-')) })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
})
after(async () => {
  await store.close()
})

const checks = resolveChecksConfig(checksSection)
const sink = () => clickhouseScoreSink(storage)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Each test looks at the spans it stores: progress recorded as of now, as a scorer that finished everything would. */
async function progressFromNow(): Promise<void> {
  await storage.command({ query: "INSERT INTO progress SELECT 'scores', now64(3), now64(3)" })
  await sleep(5)
}

async function start(extra: Partial<Parameters<typeof Scorer.start>[0]> = {}) {
  const queue = new InProcessQueue({ lingerMs: 0, gates: ['scorer'] })
  const registry = new Registry()
  const logs: string[] = []
  const scorer = await Scorer.start({
    queue,
    sink: sink(),
    checks,
    metrics: createScorerMetrics(registry),
    recovery: { storage },
    options: { quietPeriodMs: 0, maxTraceAgeMs: 60_000, tickMs: 3_600_000 },
    log: (m) => logs.push(m),
    ...extra,
  })
  const metric = async (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(await registry.metrics())?.[1] ?? 0)
  return { queue, scorer, metric, logs }
}

async function rows<T>(query: string): Promise<T[]> {
  return (await storage.query({ query, format: 'JSONEachRow' })).json<T>()
}

/** trace_complete of each trace, as stored last: whether it passed and how many spans it saw. */
async function completeness(project: string): Promise<Map<string, { passed: number; message: string }>> {
  const stored = await rows<{ trace_id: string; passed: number; evaluation_explanation: string }>(
    `SELECT trace_id, passed, evaluation_explanation FROM scores FINAL WHERE project_id = '${project}' AND scorer_name = 'trace_complete'`,
  )
  return new Map(stored.map((r) => [r.trace_id, { passed: Number(r.passed), message: r.evaluation_explanation }]))
}

const rootOf = (spans: Span[]) => spans.find((s) => s.parentSpanId === '')!

test('unscored traces in storage are read back at start: whole ones scored, rootless ones wait for their root, late spans re-score', async () => {
  await progressFromNow()
  const project = 'recovery'
  // Stored, never scored (the scorer died holding it).
  const whole = scenarios.refundOutsidePolicy().spans(project)
  // Stored without its root, which the sender has yet to send.
  const rootless = scenarios.refundHandledWell().spans(project)
  const root = rootOf(rootless)
  // Scored, then a span came (stored, but the scorer died before scoring the trace again).
  const late = scenarios.truncatedAnswer().spans(project)
  // Scored with all its spans: nothing to do.
  const done = scenarios.toolLoop().spans(project)
  const lateSpan = late.find((s) => s.parentSpanId !== '')!
  const early = late.filter((s) => s !== lateSpan)
  await insertSpans(storage, [...early, ...done])
  await sink().write([
    ...traceScoreRecords(scoreTrace({ projectId: project, traceId: late[0]!.traceId, spans: early, complete: true }, checks)),
    ...traceScoreRecords(scoreTrace({ projectId: project, traceId: done[0]!.traceId, spans: done, complete: true }, checks)),
  ])
  await sleep(5)
  await insertSpans(storage, [...whole, ...rootless.filter((s) => s !== root), lateSpan])

  const { queue, scorer, metric, logs } = await start()
  assert.equal(await metric('sieve_scorer_recovered_traces_total'), 3)
  assert.equal(await metric('sieve_scored_traces_total{complete="true",rescore="false"}'), 1)
  assert.equal(await metric('sieve_scored_traces_total{complete="true",rescore="true"}'), 1)
  assert.equal(scorer.assembler.openTraces, 1)
  assert.match(logs.join('\n'), /read back 3 unscored traces .* scored 2 .*; 1 wait for their root/)
  let stored = await completeness(project)
  assert.equal(stored.get(whole[0]!.traceId)?.message, `complete trace of ${whole.length} spans`)
  assert.equal(stored.get(late[0]!.traceId)?.message, `complete trace of ${late.length} spans`)
  assert.equal(stored.has(rootless[0]!.traceId), false)

  // The root arrives through the queue after the restart: the trace closes whole.
  await queue.publish([root])
  assert.equal(await scorer.tick(), 1)
  stored = await completeness(project)
  assert.equal(stored.get(rootless[0]!.traceId)?.message, `complete trace of ${rootless.length} spans`)
  const startedAt = Date.now()
  await scorer.stop()
  await queue.close()
  // Nothing left open: progress recorded as of the stop, less the slack.
  const recorded = (await readProgress(storage, 'scores'))!
  assert.ok(recorded >= startedAt - PROGRESS_SLACK_MS - 1000 && recorded <= Date.now() - PROGRESS_SLACK_MS, `${recorded} vs ${startedAt}`)

  // A restart finds nothing more to do.
  const again = await start()
  assert.equal(await again.metric('sieve_scorer_recovered_traces_total'), 0)
  await again.scorer.stop()
  await again.queue.close()
})

test('a rootless trace past its maximum age is scored incomplete at once, as the assembler would', async () => {
  await progressFromNow()
  const project = 'recovery-old'
  const spans = scenarios
    .refundOutsidePolicy()
    .spans(project)
    .filter((s) => s.parentSpanId !== '')
  await insertSpans(storage, spans)
  // The scorer's clock runs two minutes ahead: the spans arrived longer ago than the 60 s maximum age.
  const { queue, scorer, metric } = await start({ now: () => Date.now() + 120_000 })
  assert.equal(await metric('sieve_scored_traces_total{complete="false",rescore="false"}'), 1)
  assert.equal(scorer.assembler.unfinishedTraces, 0)
  const stored = await completeness(project)
  assert.equal(stored.get(spans[0]!.traceId)?.passed, 0)
  assert.match(stored.get(spans[0]!.traceId)!.message, /root span never arrived/)
  await scorer.stop()
  await queue.close()
})

test('past its bound (maxOpenTraces) a start scores the earliest arrivals and leaves the rest to the next start', async () => {
  await progressFromNow()
  const project = 'recovery-bound'
  const traces = Array.from({ length: 5 }, () => scenarios.refundHandledWell().spans(project))
  for (const spans of traces) {
    await insertSpans(storage, spans)
    await sleep(5) // distinct arrival times: the earliest are read back first
  }
  const first = await start({ options: { quietPeriodMs: 0, maxOpenTraces: 3, tickMs: 3_600_000 } })
  assert.equal(await first.metric('sieve_scorer_recovered_traces_total'), 3)
  assert.match(first.logs.join('\n'), /more are left to the next start/)
  await first.scorer.stop()
  await first.queue.close()
  assert.deepEqual(
    [...(await completeness(project)).keys()].sort(),
    traces
      .slice(0, 3)
      .map((t) => t[0]!.traceId)
      .sort(),
  )

  const second = await start({ options: { quietPeriodMs: 0, maxOpenTraces: 3, tickMs: 3_600_000 } })
  assert.equal(await second.metric('sieve_scorer_recovered_traces_total'), 2)
  await second.scorer.stop()
  await second.queue.close()
  assert.equal((await completeness(project)).size, 5)
})
