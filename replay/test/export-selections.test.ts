// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { insertSpans, migrate, type Trace } from '@sieve/core'
import { clickhouseScoreSink, scorecardRecord, scoreTrace, traceFields, traceScoreRecords, type ScoreRecord } from '@sieve/scoring'
import { judgeSectionSchema, levelRange, loadRubrics, toScoreRecords } from '@sieve/judging'
import { dimensionOf, startFakeOpenAI, verdict, type ModelRequest } from '@sieve/testkit'
import { AgentRecorder } from '@sieve/testkit/agent-trace'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { SYSTEM_PROMPT, TOOLS } from '@sieve/testkit/scenarios'
import { exportDataset, parseDataset, type ExportOptions, type GoldenExample } from '@sieve/dataset'
import { ReplayJudge, runGate, scoreReplay } from '../src/index.js'
import { checks, exportOptions } from './export-options.js'

/*
 * What each `sieve export` selection exports, and that the example keeps the selection's promise
 * on replay: --score/--below (a passed judge score or check below the threshold), --feedback,
 * --feedback-comment, --failed-gate, and `selected` recording why. Each test has a project of its
 * own, so selections never see another test's traces.
 */

const ROOT = new URL('../../', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'sieve-export-selections-'))
let testStorage: TestStorage | undefined
let storage: Storage
const rubric = loadRubrics().get('customer-support')!
const JUDGE_MODEL = 'gpt-4o-2024-08-06'

before(async () => {
  testStorage = await openTestStorage({ path: join(dir, 'ch') })
  storage = testStorage.storage
  await migrate(storage, { retentionDays: 30 })
})
after(async () => {
  await testStorage?.close()
  rmSync(dir, { recursive: true, force: true })
})

const ORDER = { order_id: 'A-1001', status: 'shipped', eta: 'Thursday' }

/** A support conversation every check passes: the order looked up (after one failed lookup, retried, when `retried`), then an answer. */
function answered(user: string, answer: string, retried = false): AgentRecorder {
  const r = new AgentRecorder('support')
  const lookups = retried ? 2 : 1
  return r.agent(
    user,
    () => {
      for (let i = 1; i <= lookups; i++) {
        const call = { id: `call_${i}`, name: 'lookup_order', arguments: { order_id: 'A-1001' } }
        r.llm({
          ...(i === 1 ? { system: SYSTEM_PROMPT, user } : { toolResults: [{ id: `call_${i - 1}`, response: { error: 'timeout' } }] }),
          tools: TOOLS,
          toolCalls: [call],
        })
        r.tool({ name: 'lookup_order', callId: call.id, arguments: call.arguments, ...(i < lookups ? { error: 'timeout' } : { result: ORDER }) })
      }
      r.llm({ toolResults: [{ id: `call_${lookups}`, response: ORDER }], tools: TOOLS, text: answer })
    },
    answer,
  )
}

/** The refund outside the 30-day window: prohibited_tools fails. */
function refunded(user: string): AgentRecorder {
  const r = new AgentRecorder('support')
  const answer = 'Refunded order A-1001.'
  return r.agent(
    user,
    () => {
      r.llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] })
      r.tool({ name: 'lookup_order', callId: 'call_1', arguments: { order_id: 'A-1001' }, result: ORDER })
      r.llm({
        toolResults: [{ id: 'call_1', response: ORDER }],
        tools: TOOLS,
        toolCalls: [{ id: 'call_2', name: 'process_refund', arguments: { order_id: 'A-1001', amount: 89 } }],
      })
      r.tool({ name: 'process_refund', callId: 'call_2', arguments: { order_id: 'A-1001', amount: 89 }, result: { status: 'refunded' } })
      r.llm({ toolResults: [{ id: 'call_2', response: { status: 'refunded' } }], tools: TOOLS, text: answer })
    },
    answer,
  )
}

/** Stores the trace with its check scores, and the judge's customer-support rows at these levels (the top one when not given). */
async function store(recorder: AgentRecorder, projectId: string, judged?: Record<string, number>): Promise<Trace> {
  const trace = recorder.trace(projectId)
  await insertSpans(storage, trace.spans)
  const rows = traceScoreRecords(scoreTrace(trace, checks))
  if (judged) rows.push(...judgeRows(trace, judged))
  await clickhouseScoreSink(storage).write(rows)
  return trace
}

/** The judge's score rows as the scorer writes them, each dimension at its level. */
function judgeRows(trace: Trace, levels: Record<string, number>): ScoreRecord[] {
  const judge = { model: JUDGE_MODEL, seed: 7 }
  const results = rubric.dimensions.map((dimension) => ({
    dimension,
    outcomes: [
      {
        ok: true as const,
        verdict: {
          evidence: [{ turn: 1, span_id: trace.spans[0]!.spanId, quote: 'order' }],
          reasoning: 'Read.',
          score: levels[dimension.id] ?? levelRange(dimension).max,
        },
        judge,
        usage: { inputTokens: 900, outputTokens: 90 },
        costUsd: 0.003,
      },
    ],
    level: levels[dimension.id] ?? levelRange(dimension).max,
    needsReview: false,
    error: undefined,
    unverified: undefined,
  }))
  return toScoreRecords({ trace, rubric, sampleReason: 'random' }, results)
}

/** The trace's scorecard row as the scorer writes it (`scorecardRecord`): the `failedGates` failed, every other item passed. */
async function storeScorecard(trace: Trace, detail: { failedGates: string[]; items: { name: string; gate: boolean; min?: number }[] }): Promise<void> {
  const passed = detail.failedGates.length === 0
  const result: Parameters<typeof scorecardRecord>[0] = {
    card: 'support-agent',
    passAt: 0.8,
    configHash: 'c0ffee',
    value: passed ? 0.9 : 0.4,
    passed,
    failedGates: detail.failedGates,
    missing: [],
    items: detail.items.map((item) => ({
      ...item,
      kind: item.name.includes('.') ? 'judge' : 'deterministic',
      weight: 1,
      state: detail.failedGates.includes(item.name) ? 'fail' : 'pass',
    })),
  }
  await clickhouseScoreSink(storage).write([scorecardRecord(result, traceFields(trace))])
}

async function storeFeedback(projectId: string, traceId: string, score: number, comment: string): Promise<void> {
  await storage.insert({
    table: 'feedback',
    format: 'JSONEachRow',
    values: [
      {
        project_id: projectId,
        feedback_id: `fb-${projectId}-${traceId}-${score}`,
        trace_id: traceId,
        span_id: '',
        score,
        comment,
        source: 'user',
        user_id: 'u-1',
      },
    ],
  })
}

/** Options exporting project `projectId` into `<name>.jsonl`. */
const options = (projectId: string, name: string, extra: Partial<ExportOptions> = {}) => exportOptions(join(dir, `${name}.jsonl`), { projectId, ...extra })

/** Exports and returns the examples written, checked against the schema line by line. */
async function exported(o: ExportOptions): Promise<{ examples: GoldenExample[]; skipped: { traceId: string; reason: string }[] }> {
  const report = await exportDataset(storage, o)
  const { examples, problems } = parseDataset(readFileSync(report.path, 'utf8'))
  assert.deepEqual(problems, [])
  return { examples: examples.map((e) => e.example), skipped: report.skipped }
}

/** A replay judge whose verdicts come from a local OpenAI-compatible server: the level per dimension name, the top one when not given. */
async function withJudge<T>(
  levels: () => Record<string, number>,
  body: (judge: ReplayJudge, floors?: Record<string, number>) => Promise<T>,
  floors?: Record<string, number>,
): Promise<T> {
  const top = (request: ModelRequest) => Math.max(...[...String(request.body.messages[1].content).matchAll(/^- (\d+): /gm)].map((m) => Number(m[1])))
  const server = await startFakeOpenAI({ script: (request) => verdict(request, levels()[dimensionOf(request)] ?? top(request)) })
  try {
    const config = { ...judgeSectionSchema.parse({ maxRetries: 0 }), baseUrl: server.baseURL, apiKey: 'test', model: JUDGE_MODEL }
    return await body(new ReplayJudge({ config, rubrics: loadRubrics(), ...(floors ? { floors } : {}) }))
  } finally {
    await server.close()
  }
}

test('--score <rubric> --below 0.9 exports a trace the judge passed at 0.85, with the floor; a replay judged 0.85 fails the gate, 0.96 passes', async () => {
  // accuracy and resolution at 4 (0.75), the rest at 5: weighted 0.85, above the rubric's 0.7.
  const trace = await store(answered('Where is order A-1001? I need it before Friday.', 'It ships Thursday.'), 'below-judge', { accuracy: 4, resolution: 4 })
  const { examples, skipped } = await exported(options('below-judge', 'below-judge', { score: 'customer-support', below: 0.9 }))
  assert.deepEqual(skipped, [])
  assert.deepEqual(
    examples.map((e) => e.source.traceId),
    [trace.traceId],
  )
  const example = examples[0]!
  assert.deepEqual(example.expected, { checks: {}, judge: { rubric: 'customer-support', floors: { 'customer-support': 0.9 } } })
  assert.deepEqual(example.selected, [{ by: 'score_below', name: 'customer-support', below: 0.9 }])
  assert.deepEqual(example.tags, ['selected:score_below', 'below:customer-support'], 'nothing failed')
  const overall = example.scores.find((s) => s.name === 'customer-support')!
  assert.deepEqual([overall.value, overall.passed], [0.85, true])

  let levels: Record<string, number> = { Accuracy: 4, Resolution: 4 }
  const gate = (judge: ReplayJudge) =>
    runGate({
      dataset: options('below-judge', 'below-judge').out,
      agent: 'testkit/agents/refund-agent.ts',
      repeats: 1,
      updateBaseline: false,
      timeoutMs: 60_000,
      checks: checks.available,
      cwd: ROOT,
      judge,
    })
  await withJudge(
    () => levels,
    async (judge) => {
      const low = await gate(judge)
      const run = low.examples[0]!.runs[0]!
      assert.deepEqual(
        [run.judge?.score, run.judge?.scoreFloor, run.judge?.passed, run.passed],
        [0.85, 0.9, false, false],
        "passes the rubric (0.7), not the example's floor",
      )
      assert.equal(low.exitCode, 1)
      levels = { Empathy: 4 } // 0.9625
      const high = await gate(judge)
      assert.equal(high.exitCode, 0, JSON.stringify(high.examples))
      assert.equal(high.examples[0]!.runs[0]!.judge?.passed, true)
    },
  )
})

test('--score <rubric.dimension> --below: the dimension floor, combined with --judge-floor, the stricter winning; calibration rows are no trace', async () => {
  const trace = await store(answered('Has order A-1001 shipped yet?', 'Yes, it arrives Thursday.'), 'below-dimension', { accuracy: 4 })
  // `sieve judge calibrate` stores its verdict on the dimension under the same name, on no trace.
  await clickhouseScoreSink(storage).write([
    {
      ...judgeRows(trace, {}).find((r) => r.scorerName === 'customer-support.accuracy')!,
      traceId: '',
      kind: 'calibration',
      value: 0.5,
      passed: false,
      sampleReason: 'calibration',
    },
  ])
  const { examples, skipped } = await exported(options('below-dimension', 'below-dimension', { score: 'customer-support.accuracy', below: 0.9 }))
  assert.deepEqual(skipped, [], 'the calibration row selected nothing')
  assert.deepEqual(
    examples.map((e) => e.expected),
    [{ checks: {}, judge: { rubric: 'customer-support', floors: { 'customer-support.accuracy': 0.9 } } }],
  )
  const floors = examples[0]!.expected.judge!.floors
  // accuracy at 4 is 0.75: above a --judge-floor of 0.5, below the example's 0.9.
  const verdictWith = (cli: Record<string, number> | undefined, example: Record<string, number> | undefined) =>
    withJudge(
      () => ({ Accuracy: 4 }),
      (judge) => judge.judgeRun(trace, rubric, example),
      cli,
    )
  assert.deepEqual((await verdictWith({ accuracy: 0.5 }, floors)).belowFloor, ['accuracy'], "the example's floor is stricter")
  assert.deepEqual((await verdictWith({ accuracy: 0.8 }, { 'customer-support.accuracy': 0.5 })).belowFloor, ['accuracy'], "--judge-floor's is stricter")
  const met = await verdictWith({ accuracy: 0.5 }, { 'customer-support.accuracy': 0.7 })
  assert.deepEqual([met.belowFloor, met.passed], [[], true])
})

test('--score <check> --below exports a trace whose check passed below the threshold; the replay must reach the minimum', async () => {
  // A lookup failed and was retried: tool_errors passes (recovered) at 0.5.
  const retried = await store(answered('Check order A-1001 for me please.', 'It ships Thursday.', true), 'below-check')
  const clean = await store(answered('Check order A-1001 once.', 'It ships Thursday.'), 'below-check')
  const { examples } = await exported(options('below-check', 'below-check', { score: 'tool_errors', below: 0.9 }))
  assert.deepEqual(
    examples.map((e) => e.source.traceId),
    [retried.traceId],
  )
  const example = examples[0]!
  assert.deepEqual(
    example.scores.find((s) => s.name === 'tool_errors'),
    { name: 'tool_errors', kind: 'deterministic', value: 0.5, passed: true },
  )
  assert.deepEqual(Object.keys(example.expected.checks), ['tool_errors'])
  assert.deepEqual(example.expected.minValues, { tool_errors: 0.9 })
  assert.deepEqual(example.selected, [{ by: 'score_below', name: 'tool_errors', below: 0.9 }])

  const again = scoreReplay(retried, example.expected, checks.available)
  assert.equal(again.passed, false)
  assert.match(again.checks[0]!.message, /all recovered .*; value 0\.5 is below the example's minimum 0\.9/)
  assert.equal(scoreReplay(clean, example.expected, checks.available).passed, true)
})

test("--feedback negative exports a thumbs-down trace whose checks all passed, expecting the agent's rubric; another project's feedback never selects", async () => {
  const down = await store(answered('I am Marguerite Okonkwo-Lindqvist, where is order A-1001?', 'Orders usually arrive.'), 'fb')
  const up = await store(answered('Where is my order A-1001, please?', 'It ships Thursday.'), 'fb')
  const rated = await store(answered('Order A-1001: when does it come?', 'Soon.'), 'fb')
  const untouched = await store(answered('Is order A-1001 on its way?', 'Yes.'), 'fb')
  await storeFeedback('fb', down.traceId, 0, 'Useless, Marguerite Okonkwo-Lindqvist did not get an ANSWER')
  await storeFeedback('fb', up.traceId, 5, 'Great, the refund worked')
  await storeFeedback('fb', rated.traceId, 2, 'meh')
  // Another tenant's thumbs down on this project's trace id: never read for project fb.
  await storeFeedback('tenant-x', untouched.traceId, -1, 'terrible answer')

  const rubricFor = () => 'customer-support'
  const negative = await exported(options('fb', 'fb-negative', { feedback: { maxScore: 0 }, rubricFor }))
  assert.deepEqual(
    negative.examples.map((e) => e.source.traceId),
    [down.traceId],
  )
  const example = negative.examples[0]!
  assert.deepEqual(example.expected, { checks: {}, judge: { rubric: 'customer-support' } })
  assert.ok(
    example.scores.every((s) => s.passed),
    'every check passed',
  )
  assert.deepEqual(example.selected, [{ by: 'feedback', feedback: { score: 0, comment: 'Useless, <PERSON_1> did not get an ANSWER' } }])
  assert.match(example.input.messages[0]!.content, /I am <PERSON_1>, where is order A-1001\?/, 'one placeholder scope with the input')
  assert.deepEqual(example.tags, ['selected:feedback'])

  // A rating scale: 2 of 5 is negative with --feedback-max 2.
  const ratings = await exported(options('fb', 'fb-max', { feedback: { maxScore: 2 }, rubricFor }))
  assert.deepEqual(ratings.examples.map((e) => e.source.traceId).sort(), [down.traceId, rated.traceId].sort())

  // --feedback-comment: any score, case aside; with --feedback, on the same feedback row.
  const byComment = await exported(options('fb', 'fb-comment', { feedback: { comment: 'REFUND' }, rubricFor }))
  assert.deepEqual(
    byComment.examples.map((e) => [e.source.traceId, e.selected]),
    [[up.traceId, [{ by: 'feedback', feedback: { score: 5, comment: 'Great, the refund worked' } }]]],
  )
  assert.deepEqual(
    (await exportDataset(storage, options('fb', 'fb-both', { feedback: { maxScore: 0, comment: 'refund' }, rubricFor, dryRun: true }))).added,
    [],
  )
  const both = await exportDataset(storage, options('fb', 'fb-both', { feedback: { maxScore: 0, comment: 'answer' }, rubricFor, dryRun: true }))
  assert.deepEqual(
    both.added.map((a) => a.traceId),
    [down.traceId],
  )

  // No judge configured and nothing failed: nothing to replay it on, said so.
  const noJudge = await exportDataset(storage, options('fb', 'fb-no-judge', { feedback: { maxScore: 0 }, dryRun: true }))
  assert.deepEqual(noJudge.added, [])
  assert.equal(noJudge.skipped.length, 1)
  assert.match(noJudge.skipped[0]!.reason, /selected by feedback, but no check failed and no judge rubric is configured for agent 'support'/)
  assert.ok(!JSON.stringify([negative, ratings, byComment, noJudge]).includes(untouched.traceId), "tenant-x's feedback selected nothing")
})

test("--failed-gate <name> and any: the gate's score is expected (a check with its parameters, a judge score with the card's min); scorecard is never a check", async () => {
  // Refunded outside policy: prohibited_tools and the judge's policy_adherence fail, both gates.
  const refund = await store(refunded('Refund order A-1001, it arrived 45 days ago.'), 'gates', { policy_adherence: 1 })
  await storeScorecard(refund, {
    failedGates: ['prohibited_tools', 'customer-support.policy_adherence'],
    items: [
      { name: 'prohibited_tools', gate: true },
      { name: 'customer-support.policy_adherence', gate: true },
    ],
  })
  // Every check and the judge passed, but accuracy (0.75) is under the card's min 0.8 for that gate.
  const vague = await store(answered('When will order A-1001 arrive?', 'Around Thursday, I think.'), 'gates', { accuracy: 4 })
  await storeScorecard(vague, { failedGates: ['customer-support.accuracy'], items: [{ name: 'customer-support.accuracy', gate: true, min: 0.8 }] })
  const fine = await store(answered('Where is A-1001?', 'It ships Thursday.'), 'gates', {})
  await storeScorecard(fine, { failedGates: [], items: [] })

  const byCheck = await exported(options('gates', 'gate-check', { failedGate: 'prohibited_tools' }))
  assert.deepEqual(
    byCheck.examples.map((e) => e.source.traceId),
    [refund.traceId],
  )
  const refundExample = byCheck.examples[0]!
  assert.deepEqual(refundExample.expected.checks, { prohibited_tools: { tools: [{ name: 'process_refund' }], scope: 'trace' } })
  assert.deepEqual(refundExample.expected.judge, { rubric: 'customer-support' })
  assert.deepEqual(refundExample.selected, [{ by: 'failed_gate', name: 'prohibited_tools', card: 'support-agent', gates: ['prohibited_tools'] }])
  // The rubric's weighted score passed; its policy_adherence dimension failed, and the tag names it.
  assert.deepEqual(refundExample.tags, [
    'failed:prohibited_tools',
    'failed:customer-support.policy_adherence',
    'gate:prohibited_tools',
    'gate:customer-support.policy_adherence',
    'selected:failed_gate',
  ])

  const byJudge = await exported(options('gates', 'gate-judge', { failedGate: 'customer-support.accuracy' }))
  assert.deepEqual(
    byJudge.examples.map((e) => [e.source.traceId, e.expected]),
    [[vague.traceId, { checks: {}, judge: { rubric: 'customer-support', floors: { 'customer-support.accuracy': 0.8 } } }]],
  )

  const any = await exported(options('gates', 'gate-any', { failedGate: 'any' }))
  assert.deepEqual(any.examples.map((e) => e.source.traceId).sort(), [refund.traceId, vague.traceId].sort())
  assert.deepEqual(any.examples.find((e) => e.source.traceId === refund.traceId)!.selected, [
    { by: 'failed_gate', name: 'any', card: 'support-agent', gates: ['prohibited_tools', 'customer-support.policy_adherence'] },
  ])
  assert.deepEqual((await exportDataset(storage, options('gates', 'gate-none', { failedGate: 'tool_loop', dryRun: true }))).added, [])

  // The default selection takes a trace only its scorecard failed, expecting the gate, never 'scorecard'.
  const failures = await exported(options('gates', 'gate-default'))
  assert.deepEqual(failures.examples.map((e) => e.source.traceId).sort(), [refund.traceId, vague.traceId].sort())
  const onlyCard = failures.examples.find((e) => e.source.traceId === vague.traceId)!
  assert.deepEqual(onlyCard.expected, { checks: {}, judge: { rubric: 'customer-support', floors: { 'customer-support.accuracy': 0.8 } } })
  assert.deepEqual(onlyCard.selected, [{ by: 'failure' }])
  for (const e of failures.examples) {
    assert.ok(!('scorecard' in e.expected.checks), 'scorecard is not a check')
    assert.ok(!e.tags.some((t) => t.includes('scorecard')), e.tags.join(', '))
  }
})
