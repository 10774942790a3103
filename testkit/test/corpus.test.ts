import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { startFakeOpenAI, type FakeOpenAI, type ModelRequest } from '@sieve/testkit'
import {
  CORPUS_CASES,
  CORPUS_SCENARIOS,
  CORPUS_SCENARIO_NAMES,
  corpusModelStep,
  corpusServiceName,
  corpusSkip,
  runCorpusCase,
  type CorpusCase,
} from '@sieve/testkit/corpus'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * The corpus harness itself (what the conventions tests run on): the model's script answers every
 * scenario through both APIs, and a case's agent runs all scenarios in one process, each under its
 * own service name, each turn a trace, making exactly the model calls the scenario needs. One Python
 * and one JavaScript case; the corpus tests run them all.
 */

const request = (api: ModelRequest['api'], body: object): ModelRequest => ({ index: 0, api, method: 'POST', path: '', headers: {}, body, stream: false })

describe('the corpus model script', () => {
  test('Chat Completions: the turn’s tool call first, its answer once the result is in', () => {
    const asked = [{ role: 'system', content: 'x' }, { role: 'user', content: 'Where is my order A-1?' }]
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
    assert.equal((corpusModelStep(request('responses', { input: input.slice(0, 3) })) as { text: string }).text, 'Order A-1 is refunded; sorry it arrived broken.')
    assert.equal((corpusModelStep(request('responses', { input })) as { text: string }).text, 'Within five business days.')
  })

  test('a request the corpus does not expect is answered with a text saying so', () => {
    assert.match((corpusModelStep(request('chat.completions', { messages: [{ role: 'user', content: 'hello' }] })) as { text: string }).text, /did not expect/)
  })
})

const pick = (name: string): CorpusCase => CORPUS_CASES.find((c) => c.name === name)!
const CASES = [pick('openai-openinference'), pick('js-sieve-sdk')]

describe('a corpus case run against Sieve', () => {
  let sieve: RunningSieve
  let model: FakeOpenAI
  before(async () => {
    sieve = await startSieve()
    model = await startFakeOpenAI({ script: [] })
  })
  after(async () => {
    await model?.close()
    await sieve?.stop()
  })

  for (const c of CASES) {
    test(`${c.name}: every scenario stored under its own service, a trace per turn, the model calls it needs`, { skip: corpusSkip(c) }, async () => {
      const run = await runCorpusCase(c, { sieve, model })
      for (const scenario of CORPUS_SCENARIO_NAMES) {
        const traces = run.traces[scenario]!
        assert.equal(traces.length, CORPUS_SCENARIOS[scenario].turns.length, `${scenario}: one trace per turn`)
        for (const trace of traces) assert.ok(trace.spans.every((s) => s.serviceName === corpusServiceName(c, scenario)))
      }
      // clean and streamed: a tool call and an answer; forbidden the same; the session 2 + 1 + 1.
      assert.equal(run.requests.length, 10)
      assert.deepEqual(run.requests.map((r) => r.stream), [...Array(8).fill(false), true, true])
      assert.ok(run.requests.every((r) => JSON.stringify(r.body).includes('process_refund')), 'both tools offered on every call')
    })
  }
})
