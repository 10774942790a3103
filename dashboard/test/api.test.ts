// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { Storage } from '@sieve/core'
import { insertSpans, type Span } from '@sieve/core'
import type { DatasetExporter } from '../src/index.js'
import { openEngine } from './support/engine.js'
import { seed, traceId, type SeedTrace } from './support/seed.js'
import { startApi } from './support/app.js'

/*
 * Seeded data with known answers. Hour H: ten traces of support@1 (tool_policy passes 9 of 10;
 * judge accuracy on four of them: 0.8, 0.6, 0.4, 1.0, plus one judge error). Hour H+1: ten traces of
 * support@2 (tool_policy passes 4 of 10; trace b9 also fails answer_format). answer_format passes
 * everywhere else. Project `other` holds one more trace that project `default` must never see.
 * Three traces of support@1 in hour H are `sieve simulate --send` runs (environment `simulation`,
 * tool_policy failing, scorecard failing on it): every figure below leaves them out unless asked.
 */
const H = new Date('2026-11-20T10:00:00Z')
const at = (hour: number, minute: number) => new Date(H.getTime() + hour * 3_600_000 + minute * 60_000)
const V1 = 'support@1'
const V2 = 'support@2'
const judgeValues = [0.8, 0.6, 0.4, 1.0]

/** A scorecard row's detail as the scorer writes it (scoring/src/scores/score-record.ts). */
const scorecardDetail = (failedGates: string[]) => ({
  card: 'support',
  passAt: 0.8,
  failedGates,
  missing: [],
  items: ['tool_policy', 'answer_format'].map((name) => ({
    name,
    kind: 'deterministic',
    weight: 1,
    gate: true,
    state: failedGates.includes(name) ? 'fail' : 'pass',
  })),
})

function traces(): SeedTrace[] {
  const list: SeedTrace[] = []
  for (let i = 0; i < 10; i++) {
    list.push({
      traceId: traceId(i, 'a'),
      start: at(0, i),
      agentVersion: V1,
      model: 'gpt-4o-2024-08-06',
      inputTokens: 100,
      outputTokens: 10,
      errorCount: i === 0 ? 1 : 0,
      scores: [
        { name: 'tool_policy', value: i === 3 ? 0 : 1, passed: i !== 3, detail: i === 3 ? { span: 'x', tool: 'process_refund' } : {} },
        { name: 'answer_format', value: 1, passed: true },
        ...(i < 4 ? [{ name: 'accuracy', kind: 'judge' as const, value: judgeValues[i]!, passed: judgeValues[i]! >= 0.6, costUsd: 0.001 }] : []),
        ...(i === 4 ? [{ name: 'accuracy', kind: 'judge' as const, value: 0, passed: false, error: 'judge timed out' }] : []),
      ],
    })
  }
  for (let i = 0; i < 10; i++) {
    list.push({
      traceId: traceId(i, 'b'),
      start: at(1, i),
      agentVersion: V2,
      model: 'gpt-4o-2024-08-06',
      inputTokens: 200,
      outputTokens: 20,
      scores: [
        { name: 'tool_policy', value: i < 4 ? 1 : 0, passed: i < 4 },
        { name: 'answer_format', value: i === 9 ? 0 : 1, passed: i !== 9, detail: i === 9 ? { reason: 'missing field refund_id' } : {} },
        // support@2 runs under a scorecard gating both checks.
        {
          name: 'scorecard',
          kind: 'scorecard' as const,
          value: i < 4 ? 1 : 0.5,
          passed: i < 4,
          detail: scorecardDetail([...(i < 4 ? [] : ['tool_policy']), ...(i === 9 ? ['answer_format'] : [])]),
        },
      ],
    })
  }
  list.push({ projectId: 'other', traceId: traceId(1, 'c'), start: at(0, 30), agentVersion: V1, scores: [{ name: 'tool_policy', value: 0, passed: false }] })
  for (let i = 0; i < 3; i++) {
    list.push({
      traceId: traceId(i, 'd'),
      start: at(0, 40 + i),
      agentVersion: V1,
      model: 'gpt-4o-2024-08-06',
      environment: 'simulation',
      scores: [
        { name: 'tool_policy', value: 0, passed: false },
        { name: 'scorecard', kind: 'scorecard' as const, value: 0.5, passed: false, detail: scorecardDetail(['tool_policy']) },
      ],
    })
  }
  // Project `judged`: judge rows as the judge writes them, the rubric's weighted score under its
  // name and one row per dimension. e1's rubric score is the lower, its dimensions' the higher; e3
  // has dimension scores only (its other dimension errored, so no weighted score was written).
  const judgeRows = (rubric: number | undefined, accuracy: number, tone: number | 'error') => [
    ...(rubric === undefined ? [] : [{ name: 'support-quality', kind: 'judge' as const, value: rubric, passed: rubric >= 0.6 }]),
    { name: 'support-quality.accuracy', kind: 'judge' as const, value: accuracy, passed: accuracy >= 0.6 },
    tone === 'error'
      ? { name: 'support-quality.tone', kind: 'judge' as const, value: 0, passed: false, error: 'judge timed out' }
      : { name: 'support-quality.tone', kind: 'judge' as const, value: tone, passed: tone >= 0.6 },
  ]
  list.push({ projectId: 'judged', traceId: traceId(1, 'e'), start: at(0, 1), agentVersion: V1, scores: judgeRows(0.4, 0.9, 0.9) })
  list.push({ projectId: 'judged', traceId: traceId(2, 'e'), start: at(0, 2), agentVersion: V1, scores: judgeRows(0.5, 0.1, 0.1) })
  list.push({ projectId: 'judged', traceId: traceId(3, 'e'), start: at(0, 3), agentVersion: V1, scores: judgeRows(undefined, 0, 'error') })
  return list
}

/*
 * Spans with content for the conversation tests: session `s-42` is three traces of one customer
 * (stored in another order than they happened); the second runs a tool, its spans all starting in
 * the same millisecond with span ids that sort in the wrong order. Project `other` has a trace in
 * a session of the same id, which project `default` must never see.
 */
const S = new Date('2026-11-20T14:00:00Z')
const SESSION = 's-42'
const sessionTrace = (n: number) => traceId(n, 'f')
const msgs = (...list: object[]) => JSON.stringify(list)
const say = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] })
const lookup = { role: 'assistant', parts: [{ type: 'tool_call', id: 'k1', name: 'lookup_plan', arguments: { customer: 'C-17' } }] }
const lookedUp = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'k1', response: { plan: 'Pro' } }] }

function contentSpan(trace: string, spanId: string, parentSpanId: string, startMs: number, attributes: Span['attributes'], projectId = 'default'): Span {
  const start = BigInt(S.getTime() + startMs) * 1_000_000n
  return {
    projectId,
    traceId: trace,
    spanId: spanId.padEnd(16, '0'),
    parentSpanId: parentSpanId ? parentSpanId.padEnd(16, '0') : '',
    traceState: '',
    name: `${attributes['gen_ai.operation.name']}${attributes['gen_ai.tool.name'] ? ` ${attributes['gen_ai.tool.name']}` : ''}`,
    kind: 'INTERNAL',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500_000n),
    status: { code: 'OK', message: '' },
    flags: 0,
    serviceName: 'support-api',
    scope: { name: 'test', version: '1', attributes: {} },
    attributes,
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

function sessionSpans(): Span[] {
  const agent = (trace: string, startMs: number, user: string, answer: string, session = SESSION, projectId = 'default') =>
    contentSpan(
      trace,
      'a0',
      '',
      startMs,
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.conversation.id': session,
        'gen_ai.input.messages': msgs(say('user', user)),
        'gen_ai.output.messages': msgs(say('assistant', answer)),
      },
      projectId,
    )
  const chat = (trace: string, spanId: string, startMs: number, input: object[], output: object) =>
    contentSpan(trace, spanId, 'a0', startMs, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': msgs(...input),
      'gen_ai.output.messages': msgs(output),
    })
  const turn1 = [say('user', 'Cancel my plan.'), say('assistant', 'Are you sure?')]
  const turn2 = [say('user', 'Yes, the Pro plan.'), lookup, lookedUp, say('assistant', 'Found your Pro plan. Cancel it now?')]
  const t1 = sessionTrace(1)
  const t2 = sessionTrace(2)
  const t3 = sessionTrace(3)
  return [
    agent(t3, 120_000, 'yes', 'Cancelled.'),
    chat(t3, 'c1', 120_001, [...turn1, ...turn2, say('user', 'yes')], say('assistant', 'Cancelled.')),
    agent(t1, 0, 'Cancel my plan.', 'Are you sure?'),
    chat(t1, 'c1', 1, [say('user', 'Cancel my plan.')], say('assistant', 'Are you sure?')),
    agent(t2, 60_000, 'Yes, the Pro plan.', 'Found your Pro plan. Cancel it now?'),
    // All three in the same millisecond; by span id the second model call, then the tool, then the first.
    chat(t2, '03', 60_001, [...turn1, say('user', 'Yes, the Pro plan.')], lookup),
    contentSpan(t2, '02', 'a0', 60_001, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_plan',
      'gen_ai.tool.call.id': 'k1',
      'gen_ai.tool.call.arguments': '{"customer":"C-17"}',
      'gen_ai.tool.call.result': '{"plan":"Pro"}',
    }),
    chat(t2, '01', 60_001, [...turn1, ...turn2.slice(0, 3)], turn2[3]!),
    agent(traceId(4, 'f'), 30_000, 'What is my secret?', 'Your secret is 1234.', SESSION, 'other'),
  ]
}

function span(trace: string, spanId: string, parentSpanId: string, name: string): Span {
  const start = BigInt(at(1, 9).getTime()) * 1_000_000n
  return {
    projectId: 'default',
    traceId: trace,
    spanId,
    parentSpanId,
    traceState: '',
    name,
    kind: 'INTERNAL',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 1_000_000n),
    status: { code: 'OK', message: '' },
    flags: 0,
    serviceName: 'support-api',
    scope: { name: 'test', version: '1', attributes: {} },
    attributes: { 'gen_ai.agent.version': V2 },
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

const range = `from=${H.toISOString()}&to=${at(2, 0).toISOString()}`

describe('dashboard API on seeded data', () => {
  let client: Storage
  let api: Awaited<ReturnType<typeof startApi>>
  const exported: unknown[] = []
  const exporter: DatasetExporter = {
    async exportTraces(request) {
      exported.push(request)
      return { exported: request.traceIds.length, skipped: [], destination: 'golden.jsonl' }
    },
  }

  before(async () => {
    client = await openEngine()
    await seed(client, traces())
    await client.insert({
      table: 'feedback',
      values: [
        { project_id: 'default', feedback_id: 'f1', trace_id: traceId(9, 'b'), span_id: '', score: 0, comment: 'no refund id', source: 'user', user_id: 'u1' },
      ],
      format: 'JSONEachRow',
    })
    await insertSpans(client, [
      span(traceId(9, 'b'), '00000000000000b1', '', 'invoke_agent support'),
      span(traceId(9, 'b'), '00000000000000b2', '00000000000000b1', 'chat gpt-4o'),
    ])
    await insertSpans(client, sessionSpans())
    // `sieve judge calibrate` found the accuracy judge disagrees with humans.
    await client.insert({
      table: 'scores',
      values: [
        {
          project_id: 'default',
          trace_id: '',
          scorer_name: 'accuracy',
          kind: 'calibration',
          scorer_version: '1',
          value: 0.6,
          passed: 0,
          trace_start_time: '2026-11-20 10:30:00',
        },
      ],
      format: 'JSONEachRow',
    })
    api = await startApi({ client, exporter, keys: { 'key-default': 'default', 'key-other': 'other', 'key-judged': 'judged' } })
  })
  after(async () => {
    await api.close()
    await client.close()
  })

  test('quality gives pass rates, mean scores, trace counts and judge coverage per hour', async () => {
    const { status, body } = await api.get(`/api/quality?${range}&interval=1h`)
    assert.equal(status, 200)
    assert.deepEqual(body.buckets, [H.getTime() / 1000, H.getTime() / 1000 + 3600])
    const series = (kind: string, check: string) => body.series.find((s: any) => s.kind === kind && s.check === check)
    assert.deepEqual(series('deterministic', 'tool_policy').passRate, [0.9, 0.4])
    assert.deepEqual(series('deterministic', 'tool_policy').scored, [10, 10])
    assert.deepEqual(series('deterministic', 'answer_format').passRate, [1, 0.9])
    const accuracy = series('judge', 'accuracy')
    assert.deepEqual(accuracy.scored, [4, 0])
    assert.equal(accuracy.meanValue[0].toFixed(6), (0.7).toFixed(6))
    assert.equal(accuracy.passRate[0], 0.75)
    assert.equal(accuracy.meanValue[1], null)
    assert.deepEqual(accuracy.errors, [1, 0])
    assert.equal(accuracy.trusted, false, 'calibration marked the dimension untrusted')
    assert.equal(series('deterministic', 'tool_policy').trusted, null)
    assert.ok(!body.series.some((s: any) => s.kind === 'calibration'), 'calibration rows are not trace scores')
    assert.deepEqual(body.traces, [10, 10])
    assert.deepEqual(body.errorTraces, [1, 0])
    assert.deepEqual(body.judgedTraces, [4, 0])
    assert.deepEqual(body.judgeCoverage, [0.4, 0])
    assert.deepEqual(body.inputTokens, [1000, 2000])
    assert.equal(body.judgeCostUsd[0].toFixed(6), (0.004).toFixed(6))
  })

  test('quality grouped by agent version gives one series per check and version', async () => {
    const { body } = await api.get(`/api/quality?${range}&interval=1d&groupBy=agent_version&kind=deterministic`)
    const toolPolicy = body.series.filter((s: any) => s.check === 'tool_policy')
    assert.deepEqual(
      toolPolicy.map((s: any) => [s.group, s.passRate[0]]),
      [
        [V1, 0.9],
        [V2, 0.4],
      ],
    )
    assert.ok(body.series.every((s: any) => s.kind === 'deterministic'))
  })

  test('filters narrow the quality series to one version', async () => {
    const { body } = await api.get(`/api/quality?${range}&interval=1d&agent_version=${encodeURIComponent(V2)}&check=tool_policy`)
    assert.equal(body.series.length, 1)
    assert.deepEqual(body.series[0].passRate, [0.4])
    assert.deepEqual(body.traces, [10])
  })

  test('simulation runs are left out unless asked for: environment=simulation shows them alone, * every environment', async () => {
    const toolPolicy = async (environment: string) => {
      const { status, body } = await api.get(`/api/quality?${range}&interval=1d&check=tool_policy&environment=${encodeURIComponent(environment)}`)
      assert.equal(status, 200, JSON.stringify(body))
      return [body.series[0]?.scored[0], body.series[0]?.passRate[0], body.traces[0]]
    }
    assert.deepEqual(await toolPolicy('simulation'), [3, 0, 3])
    assert.deepEqual(await toolPolicy('*'), [23, 13 / 23, 23])
    assert.deepEqual(await toolPolicy('staging'), [undefined, undefined, 0])
    const worst = async (query: string) =>
      (await api.get(`/api/worst?${range}&check=tool_policy${query}`)).body.traces.map((t: any) => t.traceId).filter((id: string) => id.startsWith('d'))
    assert.deepEqual(await worst(''), [])
    assert.deepEqual(
      (await worst('&environment=simulation')).sort(),
      [0, 1, 2].map((i) => traceId(i, 'd')),
    )
    const compared = (await api.get(`/api/compare?a=${encodeURIComponent(V1)}&b=${encodeURIComponent(V2)}&${range}&environment=simulation`)).body
    assert.deepEqual([compared.traces, compared.checks.find((c: any) => c.check === 'tool_policy').a.scored], [{ a: 3, b: 0 }, 3])
    const card = (await api.get(`/api/scorecard?${range}&environment=simulation`)).body
    assert.deepEqual([card.traces, card.passed], [3, 0])
  })

  test('compare gives per-check deltas with counts and flags the regression', async () => {
    const { status, body } = await api.get(`/api/compare?a=${encodeURIComponent(V1)}&b=${encodeURIComponent(V2)}&${range}`)
    assert.equal(status, 200)
    assert.deepEqual(body.traces, { a: 10, b: 10 })
    const tool = body.checks.find((c: any) => c.check === 'tool_policy')
    assert.deepEqual([tool.a.scored, tool.a.passed, tool.b.scored, tool.b.passed], [10, 9, 10, 4])
    assert.equal(tool.passRateDelta.toFixed(6), (-0.5).toFixed(6))
    assert.equal(tool.regression, true)
    assert.ok(tool.z < -1.96)
    const format = body.checks.find((c: any) => c.check === 'answer_format')
    assert.equal(format.passRateDelta.toFixed(6), (-0.1).toFixed(6))
    assert.equal(format.regression, false, 'one failure in ten is not significant')
    const accuracy = body.checks.find((c: any) => c.check === 'accuracy')
    assert.equal(accuracy.b.scored, 0)
    assert.equal(accuracy.passRateDelta, null)
    assert.equal(body.checks[0].check, 'tool_policy', 'largest drop first')
  })

  test('worst lists the traces with the most failed checks first, with what failed', async () => {
    const { status, body } = await api.get(`/api/worst?${range}&limit=3`)
    assert.equal(status, 200)
    assert.equal(body.traces.length, 3)
    assert.equal(body.traces[0].traceId, traceId(9, 'b'))
    assert.deepEqual(body.traces[0].failedChecks, ['answer_format', 'tool_policy'])
    assert.equal(body.traces[0].checksFailed, 2)
    assert.equal(body.traces[0].rootName, 'invoke_agent support')
    assert.ok(body.traces.slice(1).every((t: any) => t.checksFailed === 1))
  })

  test('worst filters by failed check and sorts by judge score', async () => {
    const byCheck = await api.get(`/api/worst?${range}&check=answer_format`)
    assert.deepEqual(
      byCheck.body.traces.map((t: any) => t.traceId),
      [traceId(9, 'b')],
    )
    const byJudge = await api.get(`/api/worst?${range}&sort=judge`)

    assert.deepEqual(
      byJudge.body.traces.map((t: any) => t.judgeMean),
      [0.4, 0.6, 0.8, 1.0],
    )
    const inV1 = await api.get(`/api/worst?${range}&agent_version=${encodeURIComponent(V1)}`)
    assert.deepEqual(
      inV1.body.traces.map((t: any) => t.traceId),
      [traceId(3, 'a')],
    )
  })

  test("judgeMean is the mean of the rubric scores only, the dimensions' mean apart, and sort=judge ranks by judgeMean", async () => {
    const { status, body } = await api.get(`/api/worst?${range}&sort=judge`, 'key-judged')
    assert.equal(status, 200)
    const figures = body.traces.map((t: any) => [t.traceId, t.judgeMean, t.judgeDimensionMean === null ? null : Number(t.judgeDimensionMean.toFixed(6))])
    assert.deepEqual(figures, [
      [traceId(1, 'e'), 0.4, 0.9],
      [traceId(2, 'e'), 0.5, 0.1],
      // Dimension scores but no rubric score: no judgeMean, ranked after the traces that have one.
      [traceId(3, 'e'), null, 0],
    ])
    const byChecks = await api.get(`/api/worst?${range}`, 'key-judged')
    assert.deepEqual(byChecks.body.traces, [], 'no deterministic check failed in project judged')
  })

  test('a trace carries its scores with detail and its feedback', async () => {
    const { status, body } = await api.get(`/api/traces/${traceId(9, 'b')}/quality`)
    assert.equal(status, 200)
    const format = body.scores.find((s: any) => s.name === 'answer_format')
    assert.equal(format.passed, false)
    assert.deepEqual(format.detail, { reason: 'missing field refund_id' })
    assert.equal(body.scores[0].passed, false, 'failed checks come first')
    assert.deepEqual(
      body.feedback.map((f: any) => [f.score, f.comment]),
      [[0, 'no refund id']],
    )
  })

  test('GET /api/traces/:id gives the span tree with the scores and the feedback', async () => {
    const { status, body } = await api.get(`/api/traces/${traceId(9, 'b')}`)
    assert.equal(status, 200)
    assert.equal(body.trace.roots[0].name, 'invoke_agent support')
    assert.equal(body.trace.roots[0].children[0].name, 'chat gpt-4o')
    assert.deepEqual(
      body.scores
        .filter((s: any) => !s.passed)
        .map((s: any) => s.name)
        .sort(),
      ['answer_format', 'scorecard', 'tool_policy'],
    )
    assert.equal(body.feedback[0].comment, 'no refund id')
    const missing = await api.get(`/api/traces/${'f'.repeat(32)}`)
    assert.equal(missing.status, 404)
    const otherProject = await api.get(`/api/traces/${traceId(9, 'b')}`, 'key-other')
    assert.equal(otherProject.status, 404, 'another project cannot read the trace')
  })

  test('GET /api/traces/:id gives the conversation, spans in causal order when their clocks tie, and the session id', async () => {
    const { status, body } = await api.get(`/api/traces/${sessionTrace(2)}`)
    assert.equal(status, 200)
    assert.equal(body.sessionId, SESSION)
    // The model call that asked for k1, the tool that ran it, the model call that read its result.
    assert.deepEqual(
      body.trace.roots[0].children.map((c: any) => c.spanId.slice(0, 2)),
      ['03', '02', '01'],
    )
    const c = body.conversation
    assert.deepEqual(c.traceIds, [sessionTrace(2)])
    assert.deepEqual(
      c.turns.map((t: any) => `${t.role}${t.name ? ` ${t.name}` : ''}: ${t.text}`),
      [
        'user: Cancel my plan.',
        'assistant: Are you sure?',
        'user: Yes, the Pro plan.',
        'tool_call lookup_plan: {"customer":"C-17"}',
        'tool_result lookup_plan: {"plan":"Pro"}',
        'assistant: Found your Pro plan. Cancel it now?',
      ],
    )
    assert.deepEqual(c.turns[3].arguments, { customer: 'C-17' })
    assert.deepEqual(c.turns[4].result, { plan: 'Pro' })
    assert.ok(
      c.turns.every((t: any) => t.traceId === sessionTrace(2) && /^0[123]|^a0/.test(t.spanId)),
      'each turn names its span',
    )
    assert.equal(c.contentMissing, false)
    assert.equal(c.truncated, false)
    // A trace without content or session: the conversation says so.
    const bare = await api.get(`/api/traces/${traceId(9, 'b')}`)
    assert.equal(bare.body.sessionId, null)
    assert.equal(bare.body.conversation.contentMissing, true)
    assert.deepEqual(bare.body.conversation.turns, [])
  })

  test("GET /api/sessions/:id gives the session's traces in order and one conversation across them", async () => {
    const { status, body } = await api.get(`/api/sessions/${SESSION}`)
    assert.equal(status, 200)
    assert.equal(body.sessionId, SESSION)
    assert.deepEqual(
      body.traces.map((t: any) => [t.traceId, t.rootName, t.startTime, t.spanCount]),
      [
        [sessionTrace(1), 'invoke_agent', '2026-11-20T14:00:00.000Z', 2],
        [sessionTrace(2), 'invoke_agent', '2026-11-20T14:01:00.000Z', 4],
        [sessionTrace(3), 'invoke_agent', '2026-11-20T14:02:00.000Z', 2],
      ],
    )
    assert.equal(body.earlierTracesOmitted, false)
    assert.deepEqual(body.conversation.traceIds, [1, 2, 3].map(sessionTrace))
    assert.deepEqual(
      body.conversation.turns.map((t: any) => `${t.traceId.slice(-1)} ${t.role}: ${t.text}`),
      [
        '1 user: Cancel my plan.',
        '1 assistant: Are you sure?',
        '2 user: Yes, the Pro plan.',
        '2 tool_call: {"customer":"C-17"}',
        '2 tool_result: {"plan":"Pro"}',
        '2 assistant: Found your Pro plan. Cancel it now?',
        '3 user: yes',
        '3 assistant: Cancelled.',
      ],
    )
    assert.doesNotMatch(JSON.stringify(body), /secret/, "another project's trace in a session of the same id stays out")
  })

  test('sessions are scoped to the project, 404 when unknown, 400 on a bad id', async () => {
    const other = await api.get(`/api/sessions/${SESSION}`, 'key-other')
    assert.equal(other.status, 200)
    assert.deepEqual(
      other.body.traces.map((t: any) => t.traceId),
      [traceId(4, 'f')],
    )
    assert.deepEqual(
      other.body.conversation.turns.map((t: any) => t.text),
      ['What is my secret?', 'Your secret is 1234.'],
    )
    const judged = await api.get(`/api/sessions/${SESSION}`, 'key-judged')
    assert.equal(judged.status, 404)
    assert.equal(judged.body.error.code, 'NOT_FOUND')
    const unknown = await api.get('/api/sessions/s-43')
    assert.equal(unknown.status, 404)
    const bad = await api.get('/api/sessions/s%0A42')
    assert.equal(bad.status, 400)
    assert.equal(bad.body.error.code, 'INVALID_PARAMETER')
    assert.match(bad.body.error.message, /control characters/)
    const anonymous = await fetch(`${api.base}/api/sessions/${SESSION}`)
    assert.equal(anonymous.status, 401)
  })

  test('scorecard gives the pass rate of the range and the hard gates that failed, most often first', async () => {
    const { status, body } = await api.get(`/api/scorecard?${range}`)
    assert.equal(status, 200, JSON.stringify(body))
    assert.deepEqual(body, {
      traces: 10,
      passed: 4,
      passRate: 0.4,
      gates: [
        { name: 'tool_policy', kind: 'deterministic', failed: 6, untrusted: false },
        { name: 'answer_format', kind: 'deterministic', failed: 1, untrusted: false },
      ],
    })
    const v1 = await api.get(`/api/scorecard?${range}&agent_version=${encodeURIComponent(V1)}`)
    assert.deepEqual([v1.body.traces, v1.body.passRate, v1.body.gates], [0, null, []], 'support@1 had no scorecard')
    const other = await api.get(`/api/scorecard?${range}`, 'key-other')
    assert.equal(other.body.traces, 0, 'scoped to the project')
    const series = (await api.get(`/api/quality?${range}&interval=1h&kind=scorecard`)).body.series
    assert.deepEqual(
      series.map((s: any) => [s.check, s.passRate]),
      [['scorecard', [null, 0.4]]],
      'the rollups chart the scorecard over time',
    )
  })

  test('every query is scoped to the project of the API key', async () => {
    const other = await api.get(`/api/worst?${range}`, 'key-other')
    assert.deepEqual(
      other.body.traces.map((t: any) => t.traceId),
      [traceId(1, 'c')],
    )
    const mine = await api.get(`/api/traces/${traceId(1, 'c')}/quality`)
    assert.deepEqual(mine.body.scores, [])
    const q = await api.get(`/api/quality?${range}&interval=1d`, 'key-other')
    assert.deepEqual(q.body.traces, [1])
    const anonymous = await fetch(`${api.base}/api/quality`)
    assert.equal(anonymous.status, 401)
  })

  test('bad parameters get a 400 naming the problem', async () => {
    const cases: [string, string, RegExp][] = [
      ['/api/quality?interval=2m', 'INVALID_PARAMETER', /interval/],
      ['/api/quality?from=yesterday', 'INVALID_PARAMETER', /from: 'yesterday' is not a time/],
      ['/api/quality?groupBy=color', 'INVALID_PARAMETER', /groupBy/],
      ['/api/quality?fromm=1', 'INVALID_PARAMETER', /unknown parameter 'fromm'/],
      [`/api/quality?from=${at(2, 0).toISOString()}&to=${H.toISOString()}`, 'INVALID_PARAMETER', /from must be earlier than to/],
      ['/api/quality?from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z', 'RANGE_TOO_LARGE', /at most 93 days/],
      ['/api/quality?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z&interval=5m', 'RANGE_TOO_LARGE', /choose a larger interval/],
      ['/api/worst?limit=5000', 'INVALID_PARAMETER', /limit/],
      ['/api/compare?a=x', 'INVALID_PARAMETER', /^b: /],
      ['/api/traces/not-a-trace/quality', 'INVALID_PARAMETER', /32 hex digits/],
    ]
    for (const [path, code, message] of cases) {
      const { status, body } = await api.get(path)
      assert.equal(status, 400, path)
      assert.equal(body.error.code, code, path)
      assert.match(body.error.message, message, path)
    }
  })

  test('export hands the selected traces and the project to the exporter', async () => {
    const ok = await api.post('/api/export', { traceIds: [traceId(9, 'b').toUpperCase()] })
    assert.equal(ok.status, 200)
    assert.deepEqual(ok.body, { exported: 1, skipped: [], destination: 'golden.jsonl' })
    assert.deepEqual(exported, [{ projectId: 'default', traceIds: [traceId(9, 'b')], note: undefined }])
    const bad = await api.post('/api/export', { traceIds: [] })
    assert.equal(bad.status, 400)
    assert.match(bad.body.error.message, /traceIds/)
  })
})
