import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Span, Trace } from '@sieve/core'
import { blankSpan } from '@sieve/testkit'
import { traceTree, type SpanNode } from '../src/api/trace-tree.js'

/*
 * One agent turn: a model call asks for tool call `c1`, the tool runs it, a second model call reads
 * its result and answers. The trace view must list them in that order whatever the clocks say.
 */
const TRACE = 'c'.repeat(32)
const T0 = 1_764_400_000_000_000_000n
const messages = (...list: object[]) => JSON.stringify(list)
const ask = { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }] }
const answer = { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'delivered' } }] }
const user = { role: 'user', parts: [{ type: 'text', content: 'Where is A-1001?' }] }

function span(spanId: string, parentSpanId: string, startNs: bigint, attributes: Span['attributes']): Span {
  return blankSpan({
    traceId: TRACE,
    spanId: spanId.padEnd(16, '0'),
    parentSpanId: parentSpanId ? parentSpanId.padEnd(16, '0') : '',
    name: `${attributes['gen_ai.operation.name']}`,
    startTimeUnixNano: String(startNs),
    endTimeUnixNano: String(startNs + 1_000n),
    attributes,
  })
}

/** Spans as `readTrace` returns them: by start time, then span id. */
function trace(starts: { model: bigint; tool: bigint; answer: bigint }): Trace {
  const spans = [
    span('ff', '', T0, { 'gen_ai.operation.name': 'invoke_agent' }),
    // Ids chosen so that span id order (the tie-break of clock order) is the wrong order.
    span('03', 'ff', T0 + starts.model, { 'gen_ai.operation.name': 'chat', 'gen_ai.input.messages': messages(user), 'gen_ai.output.messages': messages(ask) }),
    span('01', 'ff', T0 + starts.tool, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'lookup_order',
      'gen_ai.tool.call.id': 'c1',
      'gen_ai.tool.call.result': '{"status":"delivered"}',
    }),
    span('02', 'ff', T0 + starts.answer, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.input.messages': messages(user, ask, answer),
      'gen_ai.output.messages': messages({ role: 'assistant', parts: [{ type: 'text', content: 'It was delivered.' }] }),
    }),
  ].sort((a, b) =>
    BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano)
      ? -1
      : BigInt(a.startTimeUnixNano) > BigInt(b.startTimeUnixNano)
        ? 1
        : a.spanId < b.spanId
          ? -1
          : 1,
  )
  return { projectId: 'p', traceId: TRACE, spans, complete: true }
}

const childOrder = (t: Trace) => traceTree(t).roots[0]!.children.map((c: SpanNode) => c.name)

test('spans starting in the same nanosecond: the tool span after the model call that asked for it, before the call reading its result', () => {
  assert.deepEqual(childOrder(trace({ model: 5n, tool: 5n, answer: 5n })), ['chat', 'execute_tool', 'chat'])
  const tree = traceTree(trace({ model: 5n, tool: 5n, answer: 5n }))
  assert.deepEqual(
    tree.roots[0]!.children.map((c) => c.spanId.slice(0, 2)),
    ['03', '01', '02'],
  )
})

test('a tool service whose clock runs behind: its span still comes after the model call requesting its call id', () => {
  // The tool runs in a service of its own whose host is 3 ms behind: by the clocks, the tool ran
  // before the model asked for it. (Spans of one service that ran one after another keep clock order.)
  const clocks = trace({ model: 3_000_000n, tool: 1_000_000n, answer: 5_000_000n })
  const skewed = { ...clocks, spans: clocks.spans.map((s) => (s.spanId.startsWith('01') ? { ...s, serviceName: 'order-tools' } : s)) }
  assert.deepEqual(
    skewed.spans.map((s) => s.spanId.slice(0, 2)),
    ['ff', '01', '03', '02'],
    'the clocks put the tool first',
  )
  assert.deepEqual(
    traceTree(skewed).roots[0]!.children.map((c) => c.spanId.slice(0, 2)),
    ['03', '01', '02'],
  )
})

test('the tree keeps the span fields and the shape (Span & {children}), and spans without content stay in clock order', () => {
  const tree = traceTree(trace({ model: 1n, tool: 2n, answer: 3n }))
  assert.equal(tree.spanCount, 4)
  assert.equal(tree.roots.length, 1)
  const tool = tree.roots[0]!.children[1]!
  assert.equal(tool.attributes['gen_ai.tool.call.id'], 'c1')
  assert.deepEqual(tool.children, [])
  const plain = [span('aa', '', T0, {}), span('bb', 'aa', T0 + 2n, {}), span('cc', 'aa', T0 + 1n, {})]
  assert.deepEqual(
    traceTree({ projectId: 'p', traceId: TRACE, spans: plain, complete: true }).roots[0]!.children.map((c) => c.spanId.slice(0, 2)),
    ['cc', 'bb'],
  )
})

test('parent links that loop lose no span', () => {
  const a = span('aa', 'bb', T0, {})
  const b = span('bb', 'aa', T0 + 1n, {})
  const tree = traceTree({ projectId: 'p', traceId: TRACE, spans: [a, b], complete: false })
  const count = (nodes: SpanNode[]): number => nodes.reduce((n, node) => n + 1 + count(node.children), 0)
  assert.equal(count(tree.roots), 2)
})
