import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Span, Trace } from '@sieve/core'
import {
  dimensionOf,
  firstCitation,
  say,
  startFakeOpenAI,
  verdict,
  type FakeOpenAI,
  type ModelRequest,
  type Step,
  supportConversation,
  supportSpan,
  numberedTraceId,
} from '@sieve/testkit'
import { judgeStage } from './stage-harness.js'

let server: FakeOpenAI

before(async () => {
  server = await startFakeOpenAI({ script: [] })
})
after(() => server.close())

const stage = (section: Record<string, unknown>, script: (r: ModelRequest) => Step) => judgeStage(server, section, script, { inThread: true })

const CONTENT = /^gen_ai\.(input|output)\.messages$|^gen_ai\.system_instructions$|^gen_ai\.tool\.call\.(arguments|result)$/
/** The trace as an agent with content capture off sends it. */
const withoutContent = (t: Trace): Trace => ({
  ...t,
  spans: t.spans.map((s) => ({ ...s, attributes: Object.fromEntries(Object.entries(s.attributes).filter(([k]) => !CONTENT.test(k))) })),
})

/** The transcript lines the judge was sent: `<role>: <first line>` per turn. */
function sentTurns(request: ModelRequest): string[] {
  const user: string = request.body.messages[1].content
  return [...user.matchAll(/\[turn (\d+) \| span [^ ]+ \| ([^\]]+)\]\n([^\n]*)/g)].map((m) => `${m[1]} ${m[2]}: ${m[3]}`)
}

test('a trace without conversation content (capture off, or tool spans only) makes no judge call and is counted', async () => {
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 } }, (r) => verdict(r, 4))
  assert.equal(s.offer({ trace: withoutContent(supportConversation(numberedTraceId(1))), checks: [] }), undefined)
  const toolsOnly = supportConversation(numberedTraceId(2))
  assert.equal(
    s.offer({ trace: { ...toolsOnly, spans: toolsOnly.spans.filter((x) => x.attributes['gen_ai.operation.name'] === 'execute_tool') }, checks: [] }),
    undefined,
  )
  await s.drain()
  assert.equal(server.requests.length, 0)
  assert.equal(records.length, 0)
  assert.equal(metrics.get('skipped{slice=random,reason=no_content}'), 2)
  assert.equal(s.budget().callsToday, 0)
})

test('a verdict quoting what no turn says is asked again once, then stored as unverified_evidence and kept out of the weighted score', async () => {
  const invented = (r: ModelRequest) =>
    say(JSON.stringify({ evidence: [{ ...firstCitation(r), quote: 'I have refunded you in full.' }], reasoning: 'r', score: 4 }))
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 }, rubrics: { default: 'generic' } }, invented)
  s.offer({ trace: supportConversation(numberedTraceId(3)), checks: [] })
  await s.drain()
  const dimensions = records.filter((r) => r.scorerName.startsWith('generic.'))
  assert.equal(server.requests.length, 2 * dimensions.length)
  assert.ok(dimensions.length > 0)
  for (const r of dimensions) {
    assert.equal(r.evaluationLabel, 'unverified_evidence')
    assert.match(r.error, /^UNVERIFIED_EVIDENCE: the quote "I have refunded you in full\." is not in turn 2/)
  }
  assert.equal(
    records.find((r) => r.scorerName === 'generic'),
    undefined,
    'no weighted score over unverified verdicts',
  )
  assert.equal(metrics.total('unverified_evidence'), dimensions.length)
})

test('a quote found in its turn once white space and quotation marks are folded is verified; a second faithful answer is kept', async () => {
  const asked = new Map<string, number>()
  const script = (r: ModelRequest) => {
    const { turn, span_id } = firstCitation(r)
    const n = asked.get(dimensionOf(r)) ?? 0
    asked.set(dimensionOf(r), n + 1)
    // The first answer per dimension invents its quote; the retry quotes the turn with odd spacing and quotation marks.
    const quote = n === 0 ? 'nothing like this was said' : '"Where  is my\norder A1?"'
    return say(JSON.stringify({ evidence: [{ turn, span_id, quote }], reasoning: 'r', score: 4 }))
  }
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 }, rubrics: { default: 'generic' } }, script)
  s.offer({ trace: supportConversation(numberedTraceId(4)), checks: [] })
  await s.drain()
  assert.ok(records.length > 1)
  for (const r of records) assert.equal(r.error, '', r.scorerName)
  assert.ok(records.find((r) => r.scorerName === 'generic'))
  assert.equal(metrics.total('unverified_evidence'), 0)
  assert.equal(metrics.total('unverified_evidence_retries'), asked.size)
})

test('the judge reads the conversation in order: earlier turns marked history, the user, the tool call, its result once, the answer', async () => {
  const id = numberedTraceId(5)
  const message = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] })
  const history = [
    message('user', 'My order A-1001 arrived broken.'),
    message('assistant', 'Should I escalate or offer store credit?'),
    message('user', 'Yes, do it.'),
  ]
  const call = { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] }
  const system = JSON.stringify([{ type: 'text', content: 'You are the support agent.' }])
  const agent = supportSpan(id, 'b000000000000001', {
    name: 'invoke_agent support',
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'gen_ai.input.messages': JSON.stringify([message('user', 'Yes, do it.')]),
      'gen_ai.output.messages': JSON.stringify([message('assistant', 'Refunded.')]),
    },
  })
  const same = { startTimeUnixNano: agent.startTimeUnixNano, endTimeUnixNano: agent.startTimeUnixNano }
  const spans: Span[] = [
    agent,
    // Every child starts and ends in the agent's first nanosecond: only causality can order them.
    supportSpan(id, 'b000000000000004', {
      ...same,
      parentSpanId: agent.spanId,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.system_instructions': system,
        'gen_ai.input.messages': JSON.stringify([
          ...history,
          call,
          { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'broken' } }] },
        ]),
        'gen_ai.output.messages': JSON.stringify([message('assistant', 'Refunded.')]),
      },
    }),
    supportSpan(id, 'b000000000000003', {
      ...same,
      parentSpanId: agent.spanId,
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'lookup_order',
        'gen_ai.tool.call.id': 'c1',
        'gen_ai.tool.call.arguments': '{"order_id":"A-1001"}',
        'gen_ai.tool.call.result': '{"status":"broken"}',
      },
    }),
    supportSpan(id, 'b000000000000002', {
      ...same,
      parentSpanId: agent.spanId,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.system_instructions': system,
        'gen_ai.input.messages': JSON.stringify(history),
        'gen_ai.output.messages': JSON.stringify([call]),
      },
    }),
  ]
  const { stage: s } = stage({ sampling: { rate: 1 }, rubrics: { default: 'generic' } }, (r) => verdict(r, 4))
  s.offer({ trace: { projectId: 'default', traceId: id, spans, complete: true }, checks: [] })
  await s.drain()
  assert.deepEqual(sentTurns(server.requests[0]!), [
    '1 system: You are the support agent.',
    '2 user | history: My order A-1001 arrived broken.',
    '3 assistant | history: Should I escalate or offer store credit?',
    '4 user: Yes, do it.',
    '5 assistant calls tool: lookup_order({"order_id":"A-1001"})',
    '6 tool result lookup_order: {"status":"broken"}',
    '7 assistant: Refunded.',
  ])
})

test('a truncated trace is judged and flagged, and kept out of means unless judge.includeTruncated', async () => {
  const incomplete = { ...supportConversation(numberedTraceId(6)), complete: false }
  const { stage: s, records } = stage({ sampling: { rate: 1 }, rubrics: { default: 'generic' } }, (r) => verdict(r, 4))
  s.offer({ trace: incomplete, checks: [] })
  await s.drain()
  assert.ok(records.length > 0)
  for (const r of records) {
    assert.equal(r.evaluationLabel, 'truncated')
    assert.match(r.error, /^TRUNCATED: trace .* is incomplete/)
    assert.deepEqual(JSON.parse(r.detail).truncated, [`trace ${numberedTraceId(6)} is incomplete`])
  }
  const included = stage({ sampling: { rate: 1 }, rubrics: { default: 'generic' }, includeTruncated: true }, (r) => verdict(r, 4))
  included.stage.offer({
    trace: { ...incomplete, traceId: numberedTraceId(7), spans: incomplete.spans.map((x) => ({ ...x, traceId: numberedTraceId(7) })) },
    checks: [],
  })
  await included.stage.drain()
  assert.ok(included.records.find((r) => r.scorerName === 'generic'))
  for (const r of included.records) assert.equal(r.error, '')
})
