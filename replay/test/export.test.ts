// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { insertSpans, migrate } from '@sieve/core'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { judgeSectionSchema, loadRubrics, toScoreRecords } from '@sieve/judging'
import { startFakeOpenAI, verdict } from '@sieve/testkit'
import { AgentRecorder } from '@sieve/testkit/agent-trace'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { checksSection, SYSTEM_PROMPT, TOOLS } from '@sieve/testkit/scenarios'
import { exportDataset, parseDataset, SelectionError } from '@sieve/dataset'
import { ReplayJudge, runGate } from '../src/index.js'
import { checks, exportOptions } from './export-options.js'

const dir = mkdtempSync(join(tmpdir(), 'sieve-export-'))
let testStorage: TestStorage | undefined
let storage: Storage

/** The refund-outside-policy scenario, with a customer who gives name, email, phone and card. */
const CUSTOMER = { name: 'Marguerite Okonkwo-Lindqvist', email: 'm.okonkwo@example.org', phone: '+44 20 7946 0958', card: '4111 1111 1111 1111' }
function refundOutsidePolicy(user: string): AgentRecorder {
  const order = { order_id: 'A-1001', item: 'blender', total: 89, delivered_days_ago: 45, customer: CUSTOMER.name, email: CUSTOMER.email }
  const answer = `Done, ${CUSTOMER.name}! I refunded $89.00 for order A-1001 to your card ${CUSTOMER.card}.`
  const r = new AgentRecorder('support')
  return r.agent(
    user,
    () =>
      r
        .llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] })
        .tool({ name: 'lookup_order', callId: 'call_1', arguments: { order_id: 'A-1001' }, result: order })
        .llm({
          toolResults: [{ id: 'call_1', response: order }],
          tools: TOOLS,
          toolCalls: [{ id: 'call_2', name: 'process_refund', arguments: { order_id: 'A-1001', amount: 89, card: CUSTOMER.card } }],
        })
        .tool({ name: 'process_refund', callId: 'call_2', arguments: { order_id: 'A-1001', amount: 89, card: CUSTOMER.card }, result: { status: 'refunded' } })
        .llm({ toolResults: [{ id: 'call_2', response: { status: 'refunded' } }], tools: TOOLS, text: answer }),
    answer,
  )
}
const USER = `Hi, I am ${CUSTOMER.name} (${CUSTOMER.email}, ${CUSTOMER.phone}). Refund order A-1001 to my card ${CUSTOMER.card}, the blender broke.`

async function store(recorder: AgentRecorder, projectId = 'default'): Promise<string> {
  const trace = recorder.trace(projectId)
  await insertSpans(storage, trace.spans)
  await clickhouseScoreSink(storage).write(traceScoreRecords(scoreTrace(trace, checks)))
  return trace.traceId
}

const options = exportOptions

let first: string
let same: string
before(async () => {
  testStorage = await openTestStorage({ path: join(dir, 'ch') })
  storage = testStorage.storage
  await migrate(storage, { retentionDays: 30 })
  first = await store(refundOutsidePolicy(USER))
  // Another customer conversation with the same words: a duplicate once scrubbed.
  same = await store(refundOutsidePolicy(USER.replace(CUSTOMER.email, 'someone.else@example.net')))
})
after(async () => {
  await testStorage?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('a dry run reports what it would add and writes nothing', async () => {
  const out = join(dir, 'dry.jsonl')
  const report = await exportDataset(storage, options(out, { dryRun: true }))
  assert.equal(report.added.length, 1)
  assert.equal(existsSync(out), false)
})

test('exports the failing trace scrubbed: no name, email, phone or card, the order id kept, the failed check as expectation', async () => {
  const out = join(dir, 'golden.jsonl')
  const report = await exportDataset(storage, options(out, { failed: 'prohibited_tools' }))
  assert.equal(report.added.length, 1)
  assert.deepEqual(
    report.duplicates.map((d) => d.duplicateOf),
    [report.added[0]!.id],
  )
  const text = readFileSync(out, 'utf8')
  for (const value of [CUSTOMER.name, 'Okonkwo', CUSTOMER.email, 'someone.else', CUSTOMER.phone, '7946 0958', CUSTOMER.card, '4111']) {
    assert.ok(!text.includes(value), `${value} leaked into the dataset`)
  }
  const { examples, problems } = parseDataset(text)
  assert.deepEqual(problems, [])
  const example = examples[0]!.example
  assert.ok([first, same].includes(example.source.traceId))
  assert.equal(example.version, 1)
  assert.match(example.input.messages[0]!.content, /I am <PERSON_1> \(<EMAIL_1>, <PHONE_1>\)\. Refund order A-1001 to my card <CREDIT_CARD_1>/)
  assert.match(example.observed.output, /Done, <PERSON_1>! I refunded \$89\.00 for order A-1001 to your card <CREDIT_CARD_1>\./)
  assert.deepEqual(example.expected.prohibited_tools, ['process_refund'])
  assert.deepEqual(example.expected.checks.prohibited_tools, { tools: [{ name: 'process_refund' }], scope: 'trace' })
  assert.ok(example.observed.toolCalls.some((c) => c.name === 'process_refund' && (c.arguments as { card: string }).card === '<CREDIT_CARD_1>'))
  assert.equal(example.bucket, 'known-failure')
  assert.equal(example.reviewBy, '2026-04-15')
  assert.ok(example.scores.some((s) => s.name === 'prohibited_tools' && !s.passed))
})

test('exporting again adds nothing: exported traces are recorded in the exports table', async () => {
  const out = join(dir, 'golden.jsonl')
  const before = readFileSync(out, 'utf8')
  const report = await exportDataset(storage, options(out, { failed: 'prohibited_tools' }))
  assert.deepEqual(report.added, [])
  assert.equal(report.alreadyExported, 2, 'the report says how many were already in the dataset')
  assert.equal(readFileSync(out, 'utf8'), before)
  const rows = await (
    await storage.query({
      query: `SELECT trace_id, duplicate_of FROM exports FINAL WHERE dataset_path = {p:String} ORDER BY trace_id`,
      query_params: { p: out },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string; duplicate_of: string }>()
  assert.deepEqual(rows.map((r) => r.trace_id).sort(), [first, same].sort())
})

test("a file holding another project's examples: only this project's count as duplicates, and no foreign example id is named", async () => {
  // A copy of the dataset above (the gate's test below replays that one).
  const out = join(dir, 'shared.jsonl')
  copyFileSync(join(dir, 'golden.jsonl'), out)
  const theirs = parseDataset(readFileSync(out, 'utf8')).examples.map((e) => e.example)
  assert.deepEqual(
    theirs.map((e) => e.source.projectId),
    ['default'],
  )
  // Project tenant-b's customers said the very same words as project default's.
  const mine = [
    await store(refundOutsidePolicy(USER), 'tenant-b'),
    await store(refundOutsidePolicy(USER.replace(CUSTOMER.email, 'someone.else@example.net')), 'tenant-b'),
  ]
  const report = await exportDataset(storage, options(out, { projectId: 'tenant-b', failed: 'prohibited_tools' }))
  assert.equal(report.added.length, 1, 'the same input in another project is no duplicate')
  assert.ok(mine.includes(report.added[0]!.traceId))
  // Its own second trace is a duplicate of its own example, never of project default's.
  assert.deepEqual(
    report.duplicates.map((d) => d.duplicateOf),
    [report.added[0]!.id],
  )
  const foreign = theirs.map((e) => e.id)
  assert.ok(!JSON.stringify(report).includes(foreign[0]!), "project default's example id is not in tenant-b's report")
  const all = parseDataset(readFileSync(out, 'utf8')).examples.map((e) => e.example)
  assert.deepEqual(
    all.map((e) => e.source.projectId),
    ['default', 'tenant-b'],
  )
  // And the other way round: project default exporting again still finds only its own.
  const again = await exportDataset(storage, options(out, { failed: 'prohibited_tools' }))
  assert.deepEqual(again.added, [])
  assert.deepEqual(
    again.duplicates.map((d) => d.duplicateOf),
    [foreign[0], foreign[0]],
  )
  const rows = await (
    await storage.query({
      query: `SELECT project_id, trace_id FROM exports FINAL WHERE dataset_path = {p:String} AND project_id = 'tenant-b'`,
      query_params: { p: out },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string }>()
  assert.deepEqual(rows.map((r) => r.trace_id).sort(), [...mine].sort(), "the exports table records tenant-b's traces under tenant-b")
})

test('selects by score threshold and by failed check, and a check that never failed selects nothing; a name no score has is refused', async () => {
  const a = await exportDataset(storage, options(join(dir, 'by-score.jsonl'), { score: 'prohibited_tools', below: 0.5, dryRun: true }))
  assert.equal(a.added.length + a.duplicates.length, 2)
  const b = await exportDataset(storage, options(join(dir, 'none.jsonl'), { failed: 'structured_output', dryRun: true }))
  assert.equal(b.added.length + b.duplicates.length, 0)
  for (const [selection, flag] of [
    [{ failed: 'no_such_check' }, '--failed'],
    [{ score: 'no_such_check', below: 0.5 }, '--score'],
    [{ failedGate: 'no_such_check' }, '--failed-gate'],
  ] as const) {
    await assert.rejects(
      exportDataset(storage, options(join(dir, 'unknown.jsonl'), { ...selection, dryRun: true })),
      (err: Error) =>
        err instanceof SelectionError &&
        new RegExp(
          `^${flag} no_such_check: no check or judge score has that name \\(checks: .*prohibited_tools.*; judge scores stored in project default: none; or scorecard\\)$`,
        ).test(err.message),
    )
  }
})

test('an example whose check was scored under other parameters than the config in use is reported as drift', async () => {
  const same = await exportDataset(storage, options(join(dir, 'drift-none.jsonl'), { dryRun: true }))
  assert.deepEqual(same.configDrift, [], 'exported with the config that scored it')
  // The export runs with another config than the scorer's: process_refund and issue_credit are prohibited now.
  const other = resolveChecksConfig({
    ...checksSection,
    agents: { support: { ...checksSection.agents.support, prohibited_tools: { tools: ['process_refund', 'issue_credit'] } } },
  })
  const report = await exportDataset(storage, options(join(dir, 'drift.jsonl'), { dryRun: true, checks: other }))
  assert.deepEqual(
    report.configDrift.map((d) => [d.check, d.scoredWith === d.configured]),
    [['prohibited_tools', false]],
  )
  assert.equal(report.configDrift[0]!.configured, other.profileFor('support', '').checks.find((c) => c.check.name === 'prohibited_tools')!.configHash)
})

test('refuses to append to a file with invalid lines, naming the command that explains them', async () => {
  const out = join(dir, 'broken.jsonl')
  writeFileSync(out, '{"version": 1}\n')
  await assert.rejects(exportDataset(storage, options(out)), /invalid line\(s\); run `sieve dataset validate/)
})

test('the exported dataset replays through the regression gate: the fixed agent passes, the broken agent fails', async () => {
  const dataset = join(dir, 'golden.jsonl')
  const agent = 'testkit/agents/refund-agent.ts'
  const root = new URL('../../', import.meta.url).pathname
  const gate = (a: string) => runGate({ dataset, agent: a, repeats: 1, updateBaseline: false, timeoutMs: 60_000, checks: checks.available, cwd: root })
  const fixed = await gate(agent)
  assert.equal(fixed.exitCode, 0, JSON.stringify(fixed.examples))
  const broken = await gate(`"${process.execPath}" --import tsx ${agent} --broken`)
  assert.equal(broken.exitCode, 1)
  assert.match(broken.reasons.join('\n'), /known failure ex_[0-9a-f]{16} fails again/)
})

test('a trace only the judge scored low becomes an example expecting its rubric, with the judge scores that put it there; the gate judges its replay', async () => {
  // Checks pass (no refund), but the judge found the answer poor: every dimension at level 2.
  const user = 'Where is order A-1001? I need it before Friday.'
  const answer = 'Orders usually arrive.'
  const order = { order_id: 'A-1001', status: 'shipped', eta: 'Thursday' }
  const r = new AgentRecorder('support')
  const trace = r
    .agent(
      user,
      () =>
        r
          .llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] })
          .tool({ name: 'lookup_order', callId: 'call_1', arguments: { order_id: 'A-1001' }, result: order })
          .llm({ toolResults: [{ id: 'call_1', response: order }], tools: TOOLS, text: answer }),
      answer,
    )
    .trace()
  await insertSpans(storage, trace.spans)
  const scored = scoreTrace(trace, checks)
  assert.ok(scored.results.every((c) => c.passed))
  const rubric = loadRubrics().get('customer-support')!
  const judgeRef = { model: 'gpt-4o-2024-08-06', seed: 7 }
  const results = rubric.dimensions.map((dimension) => ({
    dimension,
    outcomes: [
      {
        ok: true as const,
        verdict: { evidence: [{ turn: 1, span_id: trace.spans[0]!.spanId, quote: user }], reasoning: 'Vague.', score: 2 },
        judge: judgeRef,
        usage: { inputTokens: 900, outputTokens: 90 },
        costUsd: 0.003,
      },
    ],
    level: 2,
    needsReview: false,
    error: undefined,
    unverified: undefined,
  }))
  await clickhouseScoreSink(storage).write([...traceScoreRecords(scored), ...toScoreRecords({ trace, rubric, sampleReason: 'random' }, results)])

  const out = join(dir, 'judged.jsonl')
  const report = await exportDataset(storage, options(out, { score: 'customer-support', below: 0.7 }))
  assert.deepEqual(
    report.added.map((a) => a.traceId),
    [trace.traceId],
  )
  const { examples, problems } = parseDataset(readFileSync(out, 'utf8'))
  assert.deepEqual(problems, [])
  const example = examples[0]!.example
  // --below is honoured: the replay must reach 0.7 again (here the rubric's own threshold too).
  assert.deepEqual(example.expected, { checks: {}, judge: { rubric: 'customer-support', floors: { 'customer-support': 0.7 } } })
  // Every dimension at level 2 failed, and the weighted score with them: each is tagged.
  const judged = ['customer-support', ...rubric.dimensions.map((d) => `customer-support.${d.id}`)].sort()
  assert.deepEqual(example.tags, [...judged.map((name) => `failed:${name}`), 'selected:score_below', 'below:customer-support'])
  assert.deepEqual(example.selected, [{ by: 'score_below', name: 'customer-support', below: 0.7 }])
  const overall = example.scores.find((s) => s.name === 'customer-support')
  assert.deepEqual(overall && { kind: overall.kind, passed: overall.passed }, { kind: 'judge', passed: false })
  assert.equal(example.scores.filter((s) => s.kind === 'judge').length, rubric.dimensions.length + 1)

  const root = new URL('../../', import.meta.url).pathname
  const agent = 'testkit/agents/refund-agent.ts'
  let level: 'top' | 'bottom' = 'top'
  const judge = await startFakeOpenAI({
    script: (request) => {
      const prompt: string = request.body.messages[1].content
      const levels = [...prompt.matchAll(/^- (\d+): /gm)].map((m) => Number(m[1]))
      return verdict(request, level === 'top' ? Math.max(...levels) : Math.min(...levels))
    },
  })
  try {
    const config = { ...judgeSectionSchema.parse({ maxRetries: 0 }), baseUrl: judge.baseURL, apiKey: 'test', model: judgeRef.model }
    const gate = (withJudge: boolean) =>
      runGate({
        dataset: out,
        agent,
        repeats: 1,
        updateBaseline: false,
        timeoutMs: 60_000,
        checks: checks.available,
        cwd: root,
        ...(withJudge ? { judge: new ReplayJudge({ config, rubrics: loadRubrics() }) } : {}),
      })
    const good = await gate(true)
    assert.equal(good.exitCode, 0, JSON.stringify(good.examples))
    // The example's rubric, not the config's default (generic) for this agent.
    assert.equal(good.examples[0]!.judge?.rubric, 'customer-support@1.0.0')
    assert.equal(good.examples[0]!.mean, 1)
    level = 'bottom'
    const poor = await gate(true)
    assert.equal(poor.exitCode, 1)
    assert.deepEqual([poor.examples[0]!.mean, poor.examples[0]!.status], [0, 'fail'])
    await assert.rejects(gate(false), /1 example\(s\) are scored by the judge alone/)
  } finally {
    await judge.close()
  }
})

/** One agent turn of the refund agent (testkit/agents/refund-agent.ts), as it records it. */
function refundAgentTurn(
  user: string,
  o: { history?: { role: 'user' | 'assistant'; content: string }[]; broken?: boolean; sessionId?: string } = {},
): AgentRecorder {
  const tool = o.broken ? 'process_refund' : 'escalate_to_human'
  const answer = o.broken ? 'Refunded order A-1001.' : 'Order A-1001 is outside the 30-day window; a colleague will follow up.'
  const r = new AgentRecorder('support')
  return r.agent(
    user,
    () =>
      r
        .llm({ history: o.history ?? [], user, toolCalls: [{ id: 'call_1', name: tool, arguments: { order_id: 'A-1001' } }] })
        .tool({ name: tool, callId: 'call_1', arguments: { order_id: 'A-1001' } }),
    answer,
    o.sessionId,
  )
}

test('an invocation whose model call carries earlier turns exports every turn in order, the last user turn last', async () => {
  const history = [
    { role: 'user' as const, content: 'My order A-1001 arrived broken.' },
    { role: 'assistant' as const, content: 'Sorry about that! Should I escalate or offer store credit?' },
  ]
  const traceId = await store(refundAgentTurn('Yes, do it.', { history, broken: true }))
  const out = join(dir, 'history.jsonl')
  const report = await exportDataset(storage, options(out, { traceIds: [traceId] }))
  assert.deepEqual(
    report.added.map((a) => a.traceId),
    [traceId],
  )
  const example = parseDataset(readFileSync(out, 'utf8')).examples[0]!.example
  assert.deepEqual(example.input.messages, [...history, { role: 'user', content: 'Yes, do it.' }])
  assert.equal(example.observed.output, 'Refunded order A-1001.')
})

test('export then eval on a three-turn session: the agent is called per user turn and receives the history the user saw', async () => {
  const fixed = 'Order A-1001 is outside the 30-day window; a colleague will follow up.'
  const users = ['My blender from order A-1001 broke.', 'It was delivered 45 days ago.', 'Please just refund it.']
  // Each turn a trace of session sess-3; the agent sends its model only the current turn, so the
  // earlier turns come from the session's earlier traces.
  for (const [i, user] of users.entries()) await store(refundAgentTurn(user, { broken: i === 2, sessionId: 'sess-3' }))
  const out = join(dir, 'session.jsonl')
  await exportDataset(storage, options(out, { failed: 'prohibited_tools' }))
  const example = parseDataset(readFileSync(out, 'utf8'))
    .examples.map((e) => e.example)
    .find((e) => e.input.messages.at(-1)!.content === users[2])!
  const saw = [
    { role: 'user', content: users[0] },
    { role: 'assistant', content: fixed },
    { role: 'user', content: users[1] },
    { role: 'assistant', content: fixed },
    { role: 'user', content: users[2] },
  ]
  assert.deepEqual(example.input.messages, saw)
  assert.equal(example.observed.output, 'Refunded order A-1001.')

  // The replayed agent never looks the order up: the example keeps only the refund rule.
  const replayed = { ...example, expected: { checks: { prohibited_tools: example.expected.checks.prohibited_tools }, prohibited_tools: ['process_refund'] } }
  writeFileSync(out, `${JSON.stringify(replayed)}\n`)
  const received = join(dir, 'received.jsonl')
  process.env.SIEVE_EVAL_RECORD = received
  try {
    const root = new URL('../../', import.meta.url).pathname
    const result = await runGate({
      dataset: out,
      agent: 'testkit/agents/refund-agent.ts',
      repeats: 1,
      updateBaseline: false,
      timeoutMs: 60_000,
      checks: checks.available,
      cwd: root,
    })
    assert.equal(result.exitCode, 0, JSON.stringify({ reasons: result.reasons, examples: result.examples }))
  } finally {
    delete process.env.SIEVE_EVAL_RECORD
  }
  const calls = readFileSync(received, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { messages: unknown[] })
  // The fixed agent answers as recorded, so each call sees exactly what the user saw up to that turn.
  assert.deepEqual(
    calls.map((c) => c.messages),
    [saw.slice(0, 1), saw.slice(0, 3), saw],
  )
})
