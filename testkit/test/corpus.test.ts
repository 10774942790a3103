import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { ModelRequest } from '@sieve/testkit'
import { corpusModelStep } from '@sieve/testkit/corpus'

/*
 * The corpus model's script (what every conventions corpus case runs against): it answers every
 * scenario through both APIs. The cases themselves run in scorer/test/ecosystem/conventions-corpus.test.ts.
 */

const request = (api: ModelRequest['api'], body: object): ModelRequest => ({ index: 0, api, method: 'POST', path: '', headers: {}, body, stream: false })

describe('the corpus model script', () => {
  test('Chat Completions: the turn’s tool call first, its answer once the result is in', () => {
    const asked = [
      { role: 'system', content: 'x' },
      { role: 'user', content: 'Where is my order A-1?' },
    ]
    assert.deepEqual(corpusModelStep(request('chat.completions', { messages: asked })), {
      type: 'reply',
      toolCalls: [{ id: 'call_lookup_1', name: 'lookup_order', arguments: { order_id: 'A-1' } }],
      usage: { inputTokens: 120, outputTokens: 18 },
    })
    const answered = [
      ...asked,
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_lookup_1', type: 'function', function: { name: 'lookup_order', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_lookup_1', content: '{}' },
    ]
    assert.deepEqual(corpusModelStep(request('chat.completions', { messages: answered })), {
      type: 'reply',
      text: 'Order A-1 has shipped and arrives on Friday.',
      usage: { inputTokens: 160, outputTokens: 12 },
    })
  })

  test('Responses: input items, and a later session turn that calls no tool though the history holds one', () => {
    const input = [
      { role: 'user', content: 'Please refund order A-1, it arrived broken.' },
      { type: 'function_call', call_id: 'call_refund_1', name: 'process_refund', arguments: '{}' },
      { type: 'function_call_output', call_id: 'call_refund_1', output: '{}' },
      { role: 'assistant', content: [{ type: 'output_text', text: 'Order A-1 is refunded; sorry it arrived broken.' }] },
      { role: 'user', content: [{ type: 'input_text', text: 'Thanks! When will I see the money?' }] },
    ]
    assert.equal((corpusModelStep(request('responses', { instructions: 'x', input: input.slice(0, 1) })) as { toolCalls: unknown[] }).toolCalls.length, 1)
    assert.equal(
      (corpusModelStep(request('responses', { input: input.slice(0, 3) })) as { text: string }).text,
      'Order A-1 is refunded; sorry it arrived broken.',
    )
    assert.equal((corpusModelStep(request('responses', { input })) as { text: string }).text, 'Within five business days.')
  })

  test('a request the corpus does not expect is answered with a text saying so', () => {
    assert.match((corpusModelStep(request('chat.completions', { messages: [{ role: 'user', content: 'hello' }] })) as { text: string }).text, /did not expect/)
  })
})
