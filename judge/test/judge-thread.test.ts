import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { scoreRecordSchema, type ScoreRecord } from '@sieve/scoring'
import { JudgeThread } from '../src/index.js'
import type { JudgeStage } from '../src/stage.js'
import { JudgeThreadError } from '../src/judge-thread.js'
import { BUILTIN_RUBRICS_DIR, JudgeMetrics, loadRubricDir } from '@sieve/judging'
import {
  dimensionOf,
  failsTwiceThenAnswers,
  malformed,
  startFakeOpenAI,
  verdict,
  type FakeOpenAI,
  type ModelRequest,
  type Step,
  supportConversation,
  numberedTraceId,
} from '@sieve/testkit'
import { judgeStage } from './stage-harness.js'

/*
 * The judge's calls on its worker thread (the stage built without a client, as `sieve up` builds
 * it), against the local OpenAI-compatible server over real HTTP.
 */
let server: FakeOpenAI

before(async () => {
  server = await startFakeOpenAI({ script: [] })
})
after(() => server.close())

const stage = (section: Record<string, unknown>, script: (r: ModelRequest) => Step | Promise<Step>, options: { inThread?: boolean } = {}) =>
  judgeStage(server, section, script, options)

const thread = (s: JudgeStage) => {
  assert.ok(s.runner instanceof JudgeThread, 'a stage without a client judges on a worker thread')
  return s.runner
}

test('scores judged on the worker thread are the rows the in-thread judge stores', async () => {
  const section = { sampling: { rate: 1 }, rubrics: { default: 'customer-support' } }
  const trace = supportConversation(numberedTraceId(1))
  const inThread = stage(section, (r) => verdict(r, 4), { inThread: true })
  inThread.stage.offer({ trace, checks: [] })
  await inThread.stage.drain()

  const worker = stage(section, (r) => verdict(r, 4))
  thread(worker.stage)
  assert.equal(worker.stage.offer({ trace, checks: [] }), 'random')
  await worker.stage.drain()
  await worker.stage.close()

  assert.equal(worker.records.length, 6)
  for (const r of worker.records) scoreRecordSchema.parse(r)
  const byName = (rs: ScoreRecord[]) => [...rs].sort((a, b) => a.scorerName.localeCompare(b.scorerName))
  assert.deepEqual(byName(worker.records), byName(inThread.records))
  const accuracy = worker.records.find((r) => r.scorerName === 'customer-support.accuracy')!
  assert.equal(accuracy.value, 0.75)
  assert.equal(accuracy.costUsd, (1000 * 1 + 100 * 2) / 1e6)
  assert.deepEqual(JSON.parse(accuracy.evidence), [{ turn: 2, spanId: 'a000000000000002', quote: 'Where is my order A1?' }])
  assert.equal(worker.metrics.get('calls{model=judge-2025-01-01}'), 5, 'the worker thread counts its calls in the stage metrics')
  assert.equal(worker.metrics.get('traces_judged'), 1)
})

test('429 and 500 answers are retried on the worker thread, counted, and end in one score per dimension', async () => {
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 } }, failsTwiceThenAnswers(2))
  s.offer({ trace: supportConversation(numberedTraceId(2)), checks: [] })
  await s.drain()
  await s.close()
  assert.deepEqual(records.map((r) => r.scorerName).sort(), [
    'generic',
    'generic.communication',
    'generic.goal_completion',
    'generic.groundedness',
    'generic.safety_scope',
  ])
  assert.ok(records.every((r) => r.error === ''))
  assert.equal(metrics.get('retries{status=429}'), 4)
  assert.equal(metrics.get('retries{status=500}'), 4)
  assert.equal(metrics.total('calls'), 12)
  assert.equal(server.requests.length, 12)
})

test('an answer that is not a verdict, twice, is a judge error row on the worker thread, never a score', async () => {
  const {
    stage: s,
    records,
    metrics,
  } = stage({ sampling: { rate: 1 } }, (r) =>
    dimensionOf(r) === 'Groundedness' ? (r.index % 2 === 0 ? malformed() : { type: 'reply', text: '{"score": "high"}' }) : verdict(r, 3),
  )
  s.offer({ trace: supportConversation(numberedTraceId(3)), checks: [] })
  await s.drain()
  await s.close()
  const grounded = records.find((r) => r.scorerName === 'generic.groundedness')!
  assert.match(grounded.error, /^INVALID_ANSWER: /)
  assert.equal(grounded.evaluationLabel, 'error')
  assert.equal(grounded.passed, false)
  assert.equal(JSON.parse(grounded.detail).level, null)
  assert.equal(
    records.find((r) => r.scorerName === 'generic'),
    undefined,
    'no overall score without every dimension',
  )
  assert.equal(metrics.get('errors{code=INVALID_ANSWER}'), 1)
  assert.equal(metrics.get('dimension_errors{code=INVALID_ANSWER}'), 1)
  assert.equal(metrics.total('invalid_answer_retries'), 1)
})

test('spend reported back from the worker thread is counted exactly and stops the daily spend budget', async () => {
  // Each call costs 0.0012 USD (1000 in, 100 out); a generic trace 0.0048.
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 }, budgets: { spendPerDay: 0.009 } }, (r) => verdict(r, 3))
  s.offer({ trace: supportConversation(numberedTraceId(4)), checks: [] })
  await s.drain()
  assert.equal(s.budget().spendToday.toFixed(6), '0.004800')
  s.offer({ trace: supportConversation(numberedTraceId(5)), checks: [] })
  await s.drain()
  const stored = records.reduce((sum, r) => sum + r.costUsd, 0)
  assert.equal(s.budget().spendToday.toFixed(6), stored.toFixed(6))
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(6)), checks: [] }), undefined)
  assert.equal(metrics.get('skipped{slice=random,reason=spend_per_day}'), 1)
  assert.equal(server.requests.length, 8)
  await s.close()
})

test('a worker thread that dies mid-trace skips that trace, stores nothing for it, and a new thread judges the next', async () => {
  // The first trace's calls are held until the thread is gone; later calls are answered at once.
  let release!: () => void
  const held = new Promise<void>((resolve) => (release = resolve))
  let asked!: () => void
  const firstRequest = new Promise<void>((resolve) => (asked = resolve))
  let crashed = false
  const {
    stage: s,
    records,
    metrics,
  } = stage({ sampling: { rate: 1 } }, async (r) => {
    if (crashed) return verdict(r, 3)
    asked()
    await held
    return verdict(r, 3)
  })
  const original = console.error
  const logged: string[] = []
  console.error = (line: string) => void logged.push(line)
  try {
    assert.equal(s.offer({ trace: supportConversation(numberedTraceId(7)), checks: [] }), 'random')
    await firstRequest
    await thread(s).thread!.terminate() // as if the thread had crashed: nobody asked it to stop
    crashed = true
    release()
    await s.drain()
    assert.equal(records.length, 0, 'no verdict is not a low score: nothing stored')
    assert.equal(metrics.get('worker_crashes'), 1)
    assert.equal(metrics.get('skipped{slice=random,reason=worker_crash}'), 1)
    assert.ok(
      logged.some((l) => /judge's worker thread stopped/.test(l)),
      'the crash is reported',
    )

    assert.equal(s.offer({ trace: supportConversation(numberedTraceId(8)), checks: [] }), 'random')
    await s.drain()
    assert.deepEqual([...new Set(records.map((r) => r.traceId))], [numberedTraceId(8)])
    assert.equal(records.length, 5)
    assert.ok(records.every((r) => r.error === ''))
    assert.equal(metrics.get('traces_judged'), 1)
  } finally {
    console.error = original
    release()
    await s.close()
  }
  assert.equal(metrics.get('worker_crashes'), 1, 'closing the stage is not a crash')
})

test('closing the stage skips what waits, finishes what the worker thread is judging, then stops the thread', async () => {
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 }, concurrency: 1 }, (r) => verdict(r, 3, { delayMs: 30 }))
  for (let i = 10; i < 13; i++) s.offer({ trace: supportConversation(numberedTraceId(i)), checks: [] })
  await s.close()
  assert.deepEqual([...new Set(records.map((r) => r.traceId))], [numberedTraceId(10)])
  assert.equal(metrics.get('skipped{slice=random,reason=shutdown}'), 2)
  assert.equal(thread(s).thread, undefined)
  assert.equal(s.budget().callsToday, 4, 'calls reserved for skipped traces are given back')
})

test('a worker thread that cannot start is not started again for every trace: traces are skipped until it may try again', async () => {
  const metrics = new JudgeMetrics()
  const client = { baseUrl: server.baseURL, apiKey: 'k', timeoutMs: 1000, maxRetries: 0, backoff: { baseMs: 1, maxMs: 1 }, prices: {} }
  // Rubrics that are not a list: the worker's entry throws while loading, as a broken install would.
  const broken = new JudgeThread(
    { client, concurrency: 1, judges: { judge: { model: 'judge-2025-01-01', seed: 7 }, panel: undefined }, rubrics: null as never },
    metrics,
  )
  const job = { trace: supportConversation(numberedTraceId(20)), rubric: loadRubricDir(BUILTIN_RUBRICS_DIR).get('generic')!, slice: 'random' }
  server.requests.length = 0
  const original = console.error
  const logged: string[] = []
  console.error = (line: string) => void logged.push(line)
  try {
    await assert.rejects(
      broken.judge(job, () => {}),
      (err) => err instanceof JudgeThreadError && err.reason === 'worker_crash',
    )
    await assert.rejects(
      broken.judge(job, () => {}),
      /failed to start 1 time\(s\) in a row/,
    )
    assert.equal(broken.thread, undefined, 'the second trace started no thread')
  } finally {
    console.error = original
    await broken.close()
  }
  assert.equal(metrics.get('worker_crashes'), 1)
  assert.equal(logged.length, 1)
  assert.match(logged[0]!, /traces are skipped until .*, then a new thread is tried/)
  assert.equal(server.requests.length, 0)
})
