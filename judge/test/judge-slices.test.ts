// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { insertSpans, loadConfig, migrate, refreshTraceRollups, type Trace } from '@sieve/core'
import { clickhouseScoreSink, loadChecksConfig, type ScoreRecord } from '@sieve/scoring'
import { Scorer } from '@sieve/scorer'
import { createJudge } from '../src/index.js'
import { JudgeStage } from '../src/stage.js'
import { UserPositions } from '../src/user-positions.js'
import { BUILTIN_RUBRICS_DIR, JudgeClient, JudgeMetrics, loadJudgeConfig, loadRubricDir } from '@sieve/judging'
import { startFakeOpenAI, verdict, type FakeOpenAI, numberedTraceId, supportUserTrace } from '@sieve/testkit'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'

let dir: string
let testStorage: TestStorage
let storage: Storage
let server: FakeOpenAI
const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-judge-slices-'))
  testStorage = await openTestStorage({ path: join(dir, 'clickhouse') })
  storage = testStorage.storage
  await migrate(storage, { retentionDays: 30 })
  server = await startFakeOpenAI({ script: (r) => verdict(r, 3) })
})
after(async () => {
  await server.close()
  await testStorage.close()
})

/** What the ingester does with a batch: the spans, then the traces rollup. */
async function store(traces: Trace[]): Promise<void> {
  await insertSpans(
    storage,
    traces.flatMap((t) => t.spans),
  )
  await refreshTraceRollups(
    storage,
    traces.map((t) => ({ projectId: t.projectId, traceId: t.traceId })),
  )
}

function newUserStage() {
  const config = loadJudgeConfig({
    judge: { baseUrl: server.baseURL, apiKey: 'k', model: 'judge-2025-01-01', allowModelAlias: false },
    sections: { judge: { sampling: { rate: 0, slices: [{ name: 'new-users', match: { kind: 'new_user', firstTraces: 2 } }] } } },
  })!
  const records: ScoreRecord[] = []
  const metrics = new JudgeMetrics()
  const stage = new JudgeStage({
    config,
    client: new JudgeClient(config, metrics),
    metrics,
    rubrics,
    storage,
    sink: { write: async (r) => void records.push(...r) },
  })
  return { stage, records }
}

/** The traces a stage takes for the new-user slice when offered `traces` in this order. */
async function newUsersTaken(stage: JudgeStage, traces: Trace[]): Promise<string[]> {
  const taken = await Promise.all(traces.map((trace) => stage.consider({ trace, checks: [] })))
  await stage.drain()
  return [...new Set(traces.filter((_, i) => taken[i] === 'new-users').map((t) => t.traceId))].sort()
}

test('two judge instances over the same storage, and a restarted one, take exactly the same new-user traces', async () => {
  const p = 'new-users'
  const id = (n: number) => numberedTraceId(0x1000 + n)
  // alice: five traces, two of them starting at the same instant (the trace id decides: id(2) < id(3));
  // bob: three; carol: one; and a trace that names no user.
  const traces = [
    supportUserTrace(p, id(5), 'alice', 50n),
    supportUserTrace(p, id(3), 'alice', 20n),
    supportUserTrace(p, id(1), 'alice', 30n),
    supportUserTrace(p, id(2), 'alice', 20n),
    supportUserTrace(p, id(4), 'alice', 10n),
    supportUserTrace(p, id(6), 'bob', 40n),
    supportUserTrace(p, id(7), 'bob', 15n),
    supportUserTrace(p, id(8), 'bob', 25n),
    supportUserTrace(p, id(9), 'carol', 60n),
    supportUserTrace(p, id(10), undefined, 5n),
  ]
  await store(traces)
  // alice: id(4) at 10 s, then id(2) and id(3) at 20 s (id order); bob: id(7) at 15 s, id(8) at 25 s.
  const expected = [id(4), id(2), id(7), id(8), id(9)].sort()

  // Two instances of one consumer group: each sees some of the traces, in its own order.
  const a = newUserStage()
  const b = newUserStage()
  const takenA = await newUsersTaken(a.stage, traces.filter((_, i) => i % 2 === 0).reverse())
  const takenB = await newUsersTaken(
    b.stage,
    traces.filter((_, i) => i % 2 === 1),
  )
  assert.deepEqual([...takenA, ...takenB].sort(), expected)
  // Whichever instance gets a trace decides alike: offered everything, in another order, each takes the same.
  assert.deepEqual(await newUsersTaken(a.stage, [...traces].reverse()), expected)
  assert.deepEqual(await newUsersTaken(b.stage, traces), expected)
  // A restarted instance, handed some traces again (re-deliveries), decides as before.
  const restarted = newUserStage()
  assert.deepEqual(await newUsersTaken(restarted.stage, [traces[3]!, traces[0]!, traces[7]!, ...traces]), expected)
  assert.deepEqual(
    [...new Set(restarted.records.filter((r) => r.sampleReason === 'new-users').map((r) => r.traceId))].sort(),
    expected,
    'the taken traces are judged',
  )
})

test('a trace asked about before the ingester stored it takes the place it will have once stored', async () => {
  const p = 'ingest-lag'
  const id = (n: number) => numberedTraceId(0x2000 + n)
  const later = [supportUserTrace(p, id(1), 'dave', 10n), supportUserTrace(p, id(2), 'dave', 20n), supportUserTrace(p, id(3), 'dave', 30n)]
  const early = supportUserTrace(p, id(0), 'dave', 5n)
  await store(later)
  const positions = new UserPositions(storage, 2)
  // dave's first two stored traces are id(1) and id(2), but id(0), not stored yet, starts before them.
  assert.deepEqual(await Promise.all([early, ...later].map((t) => positions.positionOf(t))), [0, 0, 1, 2])
  await store([early])
  // The answers before id(0) was stored were not kept as dave's settled history.
  assert.deepEqual(await Promise.all([early, ...later].map((t) => positions.positionOf(t))), [0, 1, 2, 2])
  const fresh = new UserPositions(storage, 2)
  assert.deepEqual(await Promise.all([...later, early].map((t) => fresh.positionOf(t))), [1, 2, 2, 0])
})

/** The judge rows of a trace, every stored row (no FINAL): a second judging would show as more rows. */
async function judgeRows(project: string, id: string): Promise<Array<{ scorer_name: string; sample_reason: string }>> {
  const result = await storage.query({
    query: `SELECT scorer_name, sample_reason FROM scores WHERE project_id = {p:String} AND trace_id = {id:String} AND kind = 'judge' ORDER BY scorer_name`,
    query_params: { p: project, id },
    format: 'JSONEachRow',
  })
  return result.json()
}

async function giveFeedback(project: string, id: string, score: number, n: number): Promise<void> {
  await storage.insert({
    table: 'feedback',
    values: [{ project_id: project, feedback_id: `f-${id}-${n}`, trace_id: id, span_id: '', score, comment: '', source: 'user', user_id: 'u', attributes: {} }],
    format: 'JSONEachRow',
  })
}

test('negative feedback after a trace was scored has it judged once for that reason, also across a restart; positive feedback does not', async () => {
  const p = 'feedback'
  const id = (n: number) => numberedTraceId(0x3000 + n)
  const file = join(dir, 'feedback.yaml')
  writeFileSync(
    file,
    ['judge:', '  sampling:', '    rate: 0', '    slices:', '      - name: negative_feedback', '        match: { kind: negative_feedback }'].join('\n'),
  )
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: server.baseURL, JUDGE_MODEL: 'judge-2025-01-01' })
  const sink = clickhouseScoreSink(storage)
  const log = (message: string) => assert.fail(message)
  server.requests.length = 0
  const judge = createJudge(config, sink, undefined, storage, { feedbackPollMs: 3_600_000, log })!

  // 1 and 2 get feedback after they are scored (down, up); 3 was judged for it before a restart;
  // 4 is rated down before it is scored.
  const traces = [1, 2, 3, 4].map((n) => supportUserTrace(p, id(n), 'erin', BigInt(n)))
  await store(traces)
  const earlier = {
    projectId: p,
    traceId: id(3),
    spanId: '',
    scorerName: 'generic.goal_completion',
    kind: 'judge',
    scorerVersion: '1.0.0+prompt.1',
    sampleReason: 'negative_feedback',
  }
  await storage.insert({
    table: 'scores',
    values: [
      {
        project_id: earlier.projectId,
        trace_id: earlier.traceId,
        span_id: '',
        scorer_name: earlier.scorerName,
        kind: earlier.kind,
        scorer_version: earlier.scorerVersion,
        sample_reason: earlier.sampleReason,
      },
    ],
    format: 'JSONEachRow',
  })
  await giveFeedback(p, id(4), 0, 1)
  await judge.readFeedback()

  const queue = new InProcessQueue({ gates: ['scorer'] })
  const scorer = await Scorer.start({
    queue,
    sink,
    checks: await loadChecksConfig(config.sections),
    onScored: judge.onScored,
    options: { quietPeriodMs: 0, tickMs: 10 },
  })
  await queue.publish(traces.flatMap((t) => t.spans))
  await scorer.stop({ flush: true })
  await queue.close()
  await judge.drain()
  const callsPerTrace = 4 // the generic rubric's dimensions
  assert.equal(server.requests.length, callsPerTrace, 'only the trace rated down before scoring is judged at once')

  await giveFeedback(p, id(1), 0, 1)
  await giveFeedback(p, id(2), 1, 1)
  await giveFeedback(p, id(3), 0, 1)
  await judge.readFeedback()
  await judge.drain()
  // Feedback given twice, and a second read of it, change nothing.
  await giveFeedback(p, id(1), 0, 2)
  await judge.readFeedback()
  await judge.drain()
  await judge.stop()

  const restarted = createJudge(config, sink, undefined, storage, { feedbackPollMs: 3_600_000, log })!
  await restarted.readFeedback()
  // A durable queue hands the restarted scorer a trace judged before (its offsets were not committed).
  assert.equal(await restarted.stage.consider({ trace: traces[3]!, checks: [] }), undefined)
  await restarted.drain()
  await restarted.stop()

  assert.equal(server.requests.length, 2 * callsPerTrace, 'one more trace judged, once')
  const dimensions = ['generic', 'generic.communication', 'generic.goal_completion', 'generic.groundedness', 'generic.safety_scope']
  for (const n of [1, 4]) {
    const rows = await judgeRows(p, id(n))
    assert.deepEqual(
      rows.map((r) => r.scorer_name),
      dimensions,
      `trace ${n}: one row per dimension and one for the rubric`,
    )
    assert.deepEqual([...new Set(rows.map((r) => r.sample_reason))], ['negative_feedback'])
  }
  assert.deepEqual(await judgeRows(p, id(2)), [], 'positive feedback re-opens nothing')
  assert.deepEqual(
    await judgeRows(p, id(3)),
    [{ scorer_name: 'generic.goal_completion', sample_reason: 'negative_feedback' }],
    'judged for it before: not again',
  )
  assert.equal(restarted.stage.metrics.get('reopened{reason=negative_feedback}'), 0)
  assert.equal(judge.stage.metrics.get('reopened{reason=negative_feedback}'), 1)
})

test('a trace rated down is judged once for it when the scorer offers it while the feedback read re-opens it', async () => {
  const p = 'race'
  const trace = supportUserTrace(p, numberedTraceId(0x5001), 'gus', 1n)
  await store([trace])
  await storage.insert({
    table: 'scores',
    values: [{ project_id: p, trace_id: trace.traceId, span_id: '', scorer_name: 'trace_complete', kind: 'deterministic', scorer_version: '1' }],
    format: 'JSONEachRow',
  })
  const config = loadJudgeConfig({
    judge: { baseUrl: server.baseURL, apiKey: 'k', model: 'judge-2025-01-01', allowModelAlias: false },
    sections: { judge: { sampling: { rate: 0, slices: [{ name: 'thumbs-down', match: { kind: 'negative_feedback' } }] } } },
  })!
  const metrics = new JudgeMetrics()
  const records: ScoreRecord[] = []
  const stage = new JudgeStage({
    config,
    client: new JudgeClient(config, metrics),
    metrics,
    rubrics,
    storage,
    sink: { write: async (r) => void records.push(...r) },
  })
  // Both look the trace up in storage at the same time, and both find it scored and not judged.
  const reopened = stage.feedbackArrived([{ projectId: p, traceId: trace.traceId, lowest: 0 }])
  const offered = stage.consider({ trace, checks: [] })
  await Promise.all([reopened, offered])
  await stage.drain()
  assert.equal(metrics.get('sampled{slice=thumbs-down}'), 1)
  assert.deepEqual([...new Set(records.map((r) => `${r.traceId} ${r.sampleReason}`))], [`${trace.traceId} thumbs-down`])
  assert.equal(records.length, 5, 'four dimensions and the rubric, once')
})
