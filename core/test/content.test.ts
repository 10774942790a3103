import assert from 'node:assert/strict'
import { test } from 'node:test'
import { messageText, spanContent, toolInvocation } from '../src/content.js'
import { finishReasons, toolDefinitions, type Span } from '../src/index.js'

function span(attributes: Span['attributes'], events: Span['events'] = []): Span {
  return {
    projectId: 'p',
    traceId: 't',
    spanId: 's',
    parentSpanId: 'r',
    traceState: '',
    name: 'chat',
    kind: 'CLIENT',
    startTimeUnixNano: '1',
    endTimeUnixNano: '2',
    status: { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: 'svc',
    scope: { name: '', version: '', attributes: {} },
    attributes,
    resource: {},
    events,
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
const event = (name: string, attributes: Span['attributes']) => ({ timeUnixNano: '1', name, attributes, droppedAttributesCount: 0 })

test('current conventions: system instructions, input and output messages as JSON text', () => {
  const c = spanContent(
    span({
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be brief.' }]),
      'gen_ai.input.messages': JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', result: '{"temp":21}' }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: '21°C.' },
            { type: 'tool_call', id: 'c2', name: 'f', arguments: '{"a":1}' },
          ],
          finish_reason: 'stop',
        },
      ]),
    }),
  )
  assert.equal(c.systemInstructions, 'Be brief.')
  assert.equal(messageText(c.input[0]!), 'Weather in Paris?')
  // The spec example's `result` is accepted for `response`, and JSON text is parsed.
  assert.deepEqual(c.input[1]!.parts, [{ type: 'tool_call_response', id: 'c1', response: { temp: 21 } }])
  assert.deepEqual(c.output[0]!.parts[1], { type: 'tool_call', id: 'c2', name: 'f', arguments: { a: 1 } })
  assert.equal(c.output[0]!.finishReason, 'stop')
})

test('the inference details event carries the same content', () => {
  const c = spanContent(
    span({}, [
      event('gen_ai.client.inference.operation.details', {
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hi' }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hello' }], finish_reason: 'length' }]),
      }),
    ]),
  )
  assert.equal(messageText(c.output[0]!), 'hello')
  assert.deepEqual(finishReasons(span({ 'gen_ai.response.finish_reasons': ['stop'] }), c), ['stop', 'length'])
})

test('deprecated per-message events, including OpenAI-shaped tool calls', () => {
  const c = spanContent(
    span({}, [
      event('gen_ai.system.message', { content: 'You are a bot.' }),
      event('gen_ai.user.message', { content: 'Refund order 7' }),
      event('gen_ai.choice', {
        index: 0,
        finish_reason: 'tool_calls',
        message: JSON.stringify({ role: 'assistant', tool_calls: [{ id: 'x', type: 'function', function: { name: 'refund', arguments: '{"order":7}' } }] }),
      }),
    ]),
  )
  assert.equal(c.systemInstructions, 'You are a bot.')
  assert.deepEqual(
    c.input.map((m) => [m.role, messageText(m)]),
    [['user', 'Refund order 7']],
  )
  assert.deepEqual(c.output[0]!.parts, [{ type: 'tool_call', id: 'x', name: 'refund', arguments: { order: 7 } }])
  assert.equal(c.output[0]!.finishReason, 'tool_calls')
})

test('old gen_ai.prompt / gen_ai.completion attributes, plain and indexed', () => {
  const plain = spanContent(span({ 'gen_ai.prompt': 'Say hi', 'gen_ai.completion': 'Hi!' }))
  assert.equal(messageText(plain.input[0]!), 'Say hi')
  assert.equal(messageText(plain.output[0]!), 'Hi!')
  const indexed = spanContent(
    span({
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': 'Rules.',
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Question?',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Answer.',
      'gen_ai.completion.0.finish_reason': 'length',
    }),
  )
  assert.equal(indexed.systemInstructions, 'Rules.')
  assert.deepEqual(indexed.input.map(messageText), ['Question?'])
  assert.equal(indexed.output[0]!.finishReason, 'length')
})

test('tool spans and tool definitions', () => {
  const s = span({ 'gen_ai.tool.name': 'lookup', 'gen_ai.tool.call.arguments': '{"id":', 'gen_ai.tool.call.result': '{"ok":true}', 'error.type': 'Timeout' })
  const call = toolInvocation(s)
  assert.equal(call.arguments, '{"id":') // not JSON: kept as text so validity checks can report it
  assert.deepEqual(call.result, { ok: true })
  assert.equal(call.error, 'Timeout')
  const defs = toolDefinitions(
    span({
      'gen_ai.tool.definitions': JSON.stringify([
        { type: 'function', function: { name: 'a', parameters: { type: 'object' } } },
        { name: 'b', parameters: {} },
      ]),
    }),
  )
  assert.deepEqual([...defs.keys()], ['a', 'b'])
})

test('no content at all gives empty results, not errors', () => {
  const c = spanContent(span({ 'gen_ai.input.messages': 'not json [' }))
  assert.deepEqual(c, { systemInstructions: '', input: [{ role: 'user', parts: [{ type: 'text', content: 'not json [' }], finishReason: '' }], output: [] })
  assert.deepEqual(spanContent(span({})), { systemInstructions: '', input: [], output: [] })
})
