// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { insertFeedbackRows, loadConfig, migrate } from '@sieve/core'
import { clickhouseScoreSink, loadChecksConfig } from '@sieve/scoring'
import { Scorer } from '@sieve/scorer'
import { startFakeOpenAI, verdict, type FakeOpenAI, supportConversation, numberedTraceId } from '@sieve/testkit'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { createJudge, pollFeedback } from '../src/index.js'
import { FeedbackIndex } from '../src/feedback-index.js'

let dir: string
let store: TestStorage
let storage: Storage
let server: FakeOpenAI

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-judge-wiring-'))
  store = await openTestStorage({ path: join(dir, 'clickhouse') })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
  server = await startFakeOpenAI({ script: (r) => verdict(r, 4) })
})
after(async () => {
  await server.close()
  await store.close()
})

test('scored traces reach the judge through the scorer, and judge scores land in the scores table', async () => {
  const file = join(dir, 'sieve.yaml')
  writeFileSync(
    file,
    [
      'judge:',
      '  sampling:',
      '    rate: 0',
      '    slices:',
      '      - name: tool-errors',
      '        match: { kind: tool_error }',
      '  rubrics: { default: customer-support }',
      '  prices: { "judge-*": { input: 1, output: 2 } }',
    ].join('\n'),
  )
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: server.baseURL, JUDGE_MODEL: 'judge-2025-01-01' })
  const sink = clickhouseScoreSink(storage)
  const judge = createJudge(config, sink)!
  const queue = new InProcessQueue({ gates: ['scorer'] })
  const scorer = await Scorer.start({
    queue,
    sink,
    checks: await loadChecksConfig(config.sections),
    onScored: judge.onScored,
    options: { quietPeriodMs: 0, tickMs: 10 },
  })
  await queue.publish([...supportConversation(numberedTraceId(1)).spans, ...supportConversation(numberedTraceId(2), { toolError: true }).spans])
  await scorer.stop({ flush: true })
  await judge.drain()
  await queue.close()

  const rows = await (
    await storage.query({
      query: `SELECT trace_id, kind, scorer_name, value, passed, judge_model, rubric_id, rubric_version, prompt_version, sample_reason, evidence, cost_usd, error
              FROM scores FINAL WHERE kind = 'judge' ORDER BY scorer_name`,
      format: 'JSONEachRow',
    })
  ).json<Record<string, string | number>>()
  assert.deepEqual([...new Set(rows.map((r) => r.trace_id))], [numberedTraceId(2)], 'only the trace with a tool error was sampled')
  assert.deepEqual(
    rows.map((r) => r.scorer_name),
    [
      'customer-support',
      'customer-support.accuracy',
      'customer-support.efficiency',
      'customer-support.empathy',
      'customer-support.policy_adherence',
      'customer-support.resolution',
    ],
  )
  const accuracy = rows[1]!
  assert.equal(accuracy.judge_model, 'judge-2025-01-01')
  assert.equal(accuracy.rubric_version, '1.0.0')
  assert.equal(accuracy.prompt_version, '3')
  assert.equal(accuracy.sample_reason, 'tool-errors')
  assert.equal(accuracy.error, '')
  assert.equal(accuracy.value, 0.75)
  assert.equal(accuracy.cost_usd, 0.0012)
  assert.deepEqual(JSON.parse(String(accuracy.evidence)), [{ turn: 2, spanId: 'a000000000000002', quote: 'Where is my order A1?' }])
  const deterministic = await (
    await storage.query({ query: `SELECT count() AS n FROM scores FINAL WHERE kind = 'deterministic'`, format: 'JSONEachRow' })
  ).json<{ n: string }>()
  assert.ok(Number(deterministic[0]!.n) > 0, 'the deterministic scores are stored as before')
  assert.equal(judge.stage.metrics.get('sampled{slice=tool-errors}'), 1)
  assert.equal(judge.stage.metrics.get('not_sampled'), 1)
})

test('feedback stored in the feedback table reaches the judge, lowest score per trace', async () => {
  await insertFeedbackRows(storage, 'default', [
    { feedbackId: 'f1', traceId: numberedTraceId(7), score: 1, source: 'user', userId: 'u' },
    { feedbackId: 'f2', traceId: numberedTraceId(7), score: 0, comment: 'wrong', source: 'user', userId: 'u' },
    { feedbackId: 'f3', traceId: numberedTraceId(8), score: 1, source: 'user', userId: 'u' },
  ])
  const index = new FeedbackIndex()
  const errors: Error[] = []
  const poller = pollFeedback(storage, (rows) => rows.forEach((r) => index.record(r.projectId, r.traceId, r.lowest)), {
    intervalMs: 60_000,
    onError: (e) => errors.push(e),
  })
  await poller.poll()
  poller.stop()
  assert.deepEqual(errors, [])
  assert.equal(index.lowestFor('default', numberedTraceId(7)), 0)
  assert.equal(index.lowestFor('default', numberedTraceId(8)), 1)
  assert.equal(index.lowestFor('default', numberedTraceId(9)), undefined)
})
