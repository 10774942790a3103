import assert from 'node:assert/strict'
import { test } from 'node:test'
import { walkTree } from '../src/conversation/causal-order.js'
import { causalTree, conversationOf, spanCausalKeys, type Span, type Trace } from '../src/index.js'

const TRACE = 'ab'.repeat(16)
let clock = 1_700_000_000_000_000_000n

function span(spanId: string, parentSpanId: string, attributes: Span['attributes'], options: { ms?: number; status?: Span['status'] } = {}): Span {
  const start = clock
  clock += BigInt(options.ms ?? 1) * 1_000_000n
  return {
    projectId: 'p',
    traceId: TRACE,
    spanId: spanId.padEnd(16, '0'),
    parentSpanId: parentSpanId ? parentSpanId.padEnd(16, '0') : '',
    traceState: '',
    name: String(attributes['gen_ai.operation.name'] ?? 'span'),
    kind: 'INTERNAL',
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: clock.toString(),
    status: options.status ?? { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: 'support',
    scope: { name: '', version: '', attributes: {} },
    attributes,
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
const trace = (spans: Span[], complete = true): Trace => ({ projectId: 'p', traceId: TRACE, spans, complete })
const text = (role: string, content: string) => ({ role, parts: [{ type: 'text', content }] })
const messages = (...list: object[]) => JSON.stringify(list)
const turns = (t: Trace | Trace[]) => conversationOf(t).turns.map((x) => `${x.role}${x.name ? ` ${x.name}` : ''}: ${x.text}`)

test('one invocation of a multi-turn conversation: earlier turns from the model call, in order, each once', () => {
  const history = [
    text('user', 'My order A-1001 arrived broken.'),
    text('assistant', 'Sorry! Should I escalate or offer store credit?'),
    text('user', 'Yes, do it.'),
  ]
  const call = { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] }
  const result = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'delivered' } }] }
  const t = trace([
    span(
      'a',
      '',
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.input.messages': messages(text('user', 'Yes, do it.')),
        'gen_ai.output.messages': messages(text('assistant', 'Refunded.')),
      },
      { ms: 0 },
    ),
    span('c1', 'a', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are a support agent.' }]),
      'gen_ai.input.messages': messages(...history),
      'gen_ai.output.messages': messages(call),
    }),
    span('t1', 'a', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.call.arguments': '{"order_id":"A-1001"}',
      'gen_ai.tool.call.result': '{"status":"delivered"}',
    }),
    span('c2', 'a', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are a support agent.' }]),
      'gen_ai.input.messages': messages(...history, call, result),
      'gen_ai.output.messages': messages(text('assistant', 'Refunded.')),
    }),
  ])
  assert.deepEqual(turns(t), [
    'system: You are a support agent.',
    'user: My order A-1001 arrived broken.',
    'assistant: Sorry! Should I escalate or offer store credit?',
    'user: Yes, do it.',
    'tool_call lookup_order: {"order_id":"A-1001"}',
    'tool_result lookup_order: {"status":"delivered"}',
    'assistant: Refunded.',
  ])
  const c = conversationOf(t)
  // Each turn names the span it was first read from in the order things happened.
  assert.deepEqual(
    c.turns.map((x) => x.spanId.slice(0, 2)),
    ['c1', 'c1', 'c1', 'a0', 'c1', 't1', 'c2'],
  )
  assert.equal(c.contentMissing, false)
  assert.equal(c.truncated, false)
})

test('a tool span that starts before the model call asking for it (same millisecond) still follows it', () => {
  clock = 1_700_000_000_000_000_000n
  const at = (s: Span, ns: bigint) => ({ ...s, startTimeUnixNano: ns.toString(), endTimeUnixNano: (ns + 5n).toString() })
  const base = 1_700_000_000_000_000_000n
  const t = trace([
    at(span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }), base),
    at(
      span('t1', 'a', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'f', 'gen_ai.tool.call.id': 'x', 'gen_ai.tool.call.result': 'ok' }),
      base,
    ),
    at(
      span('c1', 'a', {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': messages(text('user', 'go')),
        'gen_ai.output.messages': messages({ role: 'assistant', parts: [{ type: 'tool_call', id: 'x', name: 'f', arguments: {} }] }),
      }),
      base + 1n,
    ),
  ])
  assert.deepEqual(turns(t), ['user: go', 'tool_call f: {}', 'tool_result f: ok'])
  const order = [...walkTree(causalTree(t.spans, spanCausalKeys()))].map((n) => n.span.spanId.slice(0, 2))
  assert.deepEqual(order, ['a0', 'c1', 't1'])
})

test('a failed tool and its retry: two calls, the error kept on the first result', () => {
  const ask = (id: string) => ({ role: 'assistant', parts: [{ type: 'tool_call', id, name: 'lookup_order', arguments: { order_id: 'A-1' } }] })
  const t = trace([
    span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }, { ms: 0 }),
    span('c1', 'a', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': messages(text('user', 'Where is A-1?')),
      'gen_ai.output.messages': messages(ask('k1')),
    }),
    span(
      't1',
      'a',
      { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': 'k1', 'error.type': 'TimeoutError' },
      { status: { code: 'ERROR', message: 'timed out' } },
    ),
    span('c2', 'a', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': messages(text('user', 'Where is A-1?'), ask('k1'), {
        role: 'tool',
        parts: [{ type: 'tool_call_response', id: 'k1', response: 'error: timed out' }],
      }),
      'gen_ai.output.messages': messages(ask('k2')),
    }),
    span('t2', 'a', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'k2',
      'gen_ai.tool.call.result': '{"eta":"today"}',
    }),
  ])
  const c = conversationOf(t)
  assert.deepEqual(
    c.turns.map((x) => `${x.role} ${x.callId ?? ''}`),
    ['user ', 'tool_call k1', 'tool_result k1', 'tool_call k2', 'tool_result k2'],
  )
  assert.equal(c.turns[2]!.error, 'timed out')
})

test('content capture off, or only tool spans: content is missing', () => {
  const off = trace([
    span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }),
    span('c1', 'a', { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' }),
  ])
  assert.equal(conversationOf(off).contentMissing, true)
  assert.deepEqual(conversationOf(off).turns, [])
  const toolsOnly = trace([span('t1', '', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order' })])
  assert.equal(conversationOf(toolsOnly).contentMissing, true)
  assert.equal(conversationOf(toolsOnly).turns.length, 1)
})

test('truncated: an incomplete trace, content cut to its maximum length, JSON cut short', () => {
  const said = (input: string) =>
    span('c', '', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': input, 'gen_ai.output.messages': messages(text('assistant', 'ok')) })
  assert.deepEqual(conversationOf(trace([said(messages(text('user', 'hi')))], false)).truncation, [`trace ${TRACE} is incomplete`])
  assert.equal(conversationOf(trace([said(messages(text('user', 'a long text…[truncated 1200 chars]')))])).truncated, true)
  const cut = conversationOf(trace([said('[{"role":"user","parts":[{"type":"text","content":"My card is 4111')]))
  assert.equal(cut.truncated, true)
  assert.equal(conversationOf(trace([said(messages(text('user', 'hi')))])).truncated, false)
})

test('older shapes: gen_ai.prompt/completion and OpenLLMetry indexed attributes', () => {
  const indexed = trace([
    span('c', '', {
      'gen_ai.system': 'openai',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'Be brief.',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Refund order 7?',
      'gen_ai.prompt.2.role': 'assistant',
      'gen_ai.prompt.2.content': 'Which order?',
      'gen_ai.prompt.3.role': 'user',
      'gen_ai.prompt.3.content': 'Order 7.',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Done.',
    }),
  ])
  assert.deepEqual(turns(indexed), ['system: Be brief.', 'user: Refund order 7?', 'assistant: Which order?', 'user: Order 7.', 'assistant: Done.'])
  const plain = trace([span('c', '', { 'gen_ai.system': 'openai', 'gen_ai.prompt': 'Say hi', 'gen_ai.completion': 'Hi!' })])
  assert.deepEqual(turns(plain), ['user: Say hi', 'assistant: Hi!'])
})

test('a session: traces in start order, a repeated user text is a new turn, earlier traces never move', () => {
  const turn = (id: string, traceId: string, user: string, answer: string, history: object[]): Trace => {
    const spans = [
      span(
        `${id}a`,
        '',
        {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.conversation.id': 's1',
          'gen_ai.input.messages': messages(text('user', user)),
          'gen_ai.output.messages': messages(text('assistant', answer)),
        },
        { ms: 0 },
      ),
      span(`${id}c`, `${id}a`, {
        'gen_ai.operation.name': 'chat',
        'gen_ai.input.messages': messages(...history, text('user', user)),
        'gen_ai.output.messages': messages(text('assistant', answer)),
      }),
    ].map((s) => ({ ...s, traceId: traceId.repeat(32) }))
    return { projectId: 'p', traceId: traceId.repeat(32), spans, complete: true }
  }
  const t1 = turn('1', 'a', 'Cancel my plan.', 'Are you sure?', [])
  const t2 = turn('2', 'b', 'yes', 'Which plan?', [text('user', 'Cancel my plan.'), text('assistant', 'Are you sure?')])
  const t3 = turn('3', 'c', 'yes', 'Cancelled.', [])
  const c = conversationOf([t3, t1, t2])
  assert.deepEqual(c.traceIds, ['a'.repeat(32), 'b'.repeat(32), 'c'.repeat(32)])
  assert.deepEqual(turns([t3, t1, t2]), [
    'user: Cancel my plan.',
    'assistant: Are you sure?',
    'user: yes',
    'assistant: Which plan?',
    'user: yes',
    'assistant: Cancelled.',
  ])
  assert.deepEqual(
    c.turns.map((x) => x.traceId[0]),
    ['a', 'a', 'b', 'b', 'c', 'c'],
  )
})

test('parent links that loop or point nowhere lose no span', () => {
  const a = span('a', 'b', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages(text('user', 'one')) })
  const b = span('b', 'a', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages(text('user', 'two')) })
  const orphan = span('c', 'zz', { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages(text('user', 'three')) })
  const nodes = [...walkTree(causalTree([a, b, orphan]))]
  assert.equal(nodes.length, 3)
  assert.deepEqual(turns(trace([a, b, orphan])).sort(), ['user: one', 'user: three', 'user: two'])
})

test('an agent answering what it answered in an earlier turn: the repeated answer is a new turn', () => {
  const same = 'A colleague will follow up.'
  const t = trace([
    span(
      'a',
      '',
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.input.messages': messages(text('user', 'Still broken.')),
        'gen_ai.output.messages': messages(text('assistant', same)),
      },
      { ms: 0 },
    ),
    span('c', 'a', {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': messages(text('user', 'It broke.'), text('assistant', same), text('user', 'Still broken.')),
      'gen_ai.output.messages': messages({ role: 'assistant', parts: [{ type: 'tool_call', id: 'e1', name: 'escalate', arguments: {} }] }),
    }),
    span('t', 'a', { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'escalate', 'gen_ai.tool.call.id': 'e1' }),
  ])
  assert.deepEqual(turns(t), ['user: It broke.', `assistant: ${same}`, 'user: Still broken.', 'tool_call escalate: {}', `assistant: ${same}`])
})

/** Each turn as `role: text`, prefixed `history` where the trace was given it rather than said it. */
const marked = (t: Trace | Trace[]) => conversationOf(t).turns.map((x) => `${x.history ? 'history ' : ''}${x.role}${x.name ? ` ${x.name}` : ''}: ${x.text}`)
const chat = (id: string, parent: string, input: object[], output: object[]) =>
  span(id, parent, { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages(...input), 'gen_ai.output.messages': messages(...output) })
const refundCall = { role: 'assistant', parts: [{ type: 'tool_call', id: 'r1', name: 'process_refund', arguments: { order_id: 'A-1' } }] }
const refundResult = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'r1', response: { status: 'refunded' } }] }

test('a turn that resends its session: what came before its request is history, what it said is its own', () => {
  const earlier = [text('user', 'Refund A-1.'), refundCall, refundResult, text('assistant', 'Refunded.')]
  const t = trace([
    span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }),
    chat('c1', 'a', [...earlier, text('user', 'When?')], [text('assistant', 'Within five days.')]),
  ])
  assert.deepEqual(marked(t), [
    'history user: Refund A-1.',
    'history tool_call process_refund: {"order_id":"A-1"}',
    'history tool_result process_refund: {"status":"refunded"}',
    'history assistant: Refunded.',
    'user: When?',
    'assistant: Within five days.',
  ])
})

test("a first model call that sees only the newest message does not make the resent history the trace's own", () => {
  const earlier = [text('user', 'Refund A-1.'), refundCall, refundResult, text('assistant', 'Refunded.')]
  const t = trace([
    span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }),
    chat('c1', 'a', [text('user', 'When?')], [text('assistant', 'route: billing')]),
    chat('c2', 'a', [...earlier, text('user', 'When?')], [text('assistant', 'Within five days.')]),
  ])
  assert.deepEqual(
    marked(t).filter((x) => x.startsWith('history')),
    [
      'history user: Refund A-1.',
      'history tool_call process_refund: {"order_id":"A-1"}',
      'history tool_result process_refund: {"status":"refunded"}',
      'history assistant: Refunded.',
    ],
  )
})

test("an answer the trace sent again in another spelling never turns the trace's own request into history", () => {
  const call = {
    role: 'assistant',
    parts: [
      { type: 'text', content: 'Let me look.' },
      { type: 'tool_call', id: 'l1', name: 'lookup_order', arguments: {} },
    ],
  }
  const respelled = {
    role: 'assistant',
    parts: [
      { type: 'text', content: 'Let me look' },
      { type: 'tool_call', id: 'l1', name: 'lookup_order', arguments: {} },
    ],
  }
  const result = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'l1', response: 'shipped' }] }
  const t = trace([
    span('a', '', { 'gen_ai.operation.name': 'invoke_agent' }),
    chat('c1', 'a', [text('user', 'Where is A-1?')], [call]),
    span('t1', 'a', {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'l1',
      'gen_ai.tool.call.result': 'shipped',
    }),
    chat('c2', 'a', [text('user', 'Where is A-1?'), respelled, result], [text('assistant', 'It shipped.')]),
  ])
  assert.deepEqual(
    marked(t).filter((x) => x.startsWith('history')),
    [],
  )
})

test('a trace that continues a tool call of an earlier turn, with no new user message: the call and its result are history', () => {
  const t = trace([chat('c1', '', [text('user', 'Refund A-1.'), refundCall, refundResult], [text('assistant', 'Done: refunded.')])])
  assert.deepEqual(marked(t), [
    'history user: Refund A-1.',
    'history tool_call process_refund: {"order_id":"A-1"}',
    'history tool_result process_refund: {"status":"refunded"}',
    'assistant: Done: refunded.',
  ])
})

test('a session read whole marks nothing: each turn was said by the trace that said it', () => {
  const first = {
    ...trace([
      chat('c1', '', [text('user', 'Refund A-1.')], [refundCall]),
      span('t1', '', {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'process_refund',
        'gen_ai.tool.call.id': 'r1',
        'gen_ai.tool.call.result': '{"status":"refunded"}',
      }),
    ]),
  }
  const second = {
    ...trace([chat('c2', '', [text('user', 'Refund A-1.'), refundCall, refundResult, text('user', 'When?')], [text('assistant', 'Within five days.')])]),
    traceId: 'cd'.repeat(16),
  }
  second.spans = second.spans.map((s) => ({ ...s, traceId: second.traceId }))
  assert.deepEqual(marked([first, second]), [
    'user: Refund A-1.',
    'tool_call process_refund: {"order_id":"A-1"}',
    'tool_result process_refund: {"status":"refunded"}',
    'user: When?',
    'assistant: Within five days.',
  ])
  assert.deepEqual(marked(second).filter((x) => x.startsWith('history')).length, 3, 'read alone, the second trace marks its history')
})
