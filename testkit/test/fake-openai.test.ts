import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import OpenAI from 'openai'
import { callTools, failWith, malformed, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'

let server: FakeOpenAI
let client: OpenAI

before(async () => {
  server = await startFakeOpenAI({ script: [] })
  client = new OpenAI({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 })
})
after(() => server.close())

describe('chat completions', () => {
  test('answers with the scripted text, usage and finish reason', async () => {
    server.setScript([say('Your order shipped.', { usage: { inputTokens: 12, outputTokens: 5 } })])
    const res = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'Where is my order?' }] })
    assert.equal(res.choices[0]?.message.content, 'Your order shipped.')
    assert.equal(res.choices[0]?.finish_reason, 'stop')
    assert.equal(res.model, 'gpt-test')
    assert.deepEqual(res.usage, { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 })
    const recorded = server.requests.at(-1)
    assert.equal(recorded?.api, 'chat.completions')
    assert.equal(recorded?.body.messages[0].content, 'Where is my order?')
    assert.equal(recorded?.headers.authorization, 'Bearer test-key')
  })

  test('returns requested tool calls', async () => {
    server.setScript([callTools([{ id: 'call_1', name: 'check_order_status', arguments: { order_id: 'A1' } }])])
    const res = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'status?' }] })
    const call = res.choices[0]?.message.tool_calls?.[0]
    assert.equal(res.choices[0]?.finish_reason, 'tool_calls')
    assert.equal(call?.type, 'function')
    assert.deepEqual(call?.type === 'function' && { id: call.id, name: call.function.name, args: JSON.parse(call.function.arguments) }, {
      id: 'call_1',
      name: 'check_order_status',
      args: { order_id: 'A1' },
    })
  })

  test('streams text and tool calls, with usage in the last chunk when asked', async () => {
    server.setScript([{ type: 'reply', text: 'Checking that order for you now.', toolCalls: [{ name: 'check_order_status', arguments: { order_id: 'B2' } }] }])
    const stream = await client.chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'status?' }],
      stream: true,
      stream_options: { include_usage: true },
    })
    let text = ''
    let args = ''
    let finish: string | null = null
    let usage: unknown = null
    let chunks = 0
    for await (const chunk of stream) {
      chunks++
      text += chunk.choices[0]?.delta.content ?? ''
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      if (chunk.usage) usage = chunk.usage
    }
    assert.ok(chunks > 3)
    assert.equal(text, 'Checking that order for you now.')
    assert.deepEqual(JSON.parse(args), { order_id: 'B2' })
    assert.equal(finish, 'tool_calls')
    assert.ok(usage && typeof usage === 'object' && 'total_tokens' in usage)
  })

  test('streams without a usage chunk unless include_usage is set', async () => {
    server.setScript([say('hello')])
    const stream = await client.chat.completions.create({ model: 'gpt-test', messages: [{ role: 'user', content: 'hi' }], stream: true })
    for await (const chunk of stream) assert.equal(chunk.usage ?? null, null)
  })
})

describe('responses', () => {
  test('answers with output text, function calls and usage', async () => {
    server.setScript([{ type: 'reply', text: 'Let me look.', toolCalls: [{ id: 'c9', name: 'lookup_customer_history', arguments: { customer_id: 'C1' } }] }])
    const res = await client.responses.create({ model: 'gpt-test', input: 'history of C1', instructions: 'Be brief.' })
    assert.equal(res.output_text, 'Let me look.')
    const call = res.output.find((o) => o.type === 'function_call')
    assert.equal(call?.type === 'function_call' && call.call_id, 'c9')
    assert.equal(res.status, 'completed')
    assert.ok((res.usage?.input_tokens ?? 0) > 0)
    assert.equal(server.requests.at(-1)?.api, 'responses')
  })

  test('streams text deltas and ends with response.completed', async () => {
    server.setScript([say('A refund is not possible after 30 days.')])
    const stream = await client.responses.create({ model: 'gpt-test', input: 'refund?', stream: true })
    let text = ''
    let completed: any = null
    for await (const event of stream) {
      if (event.type === 'response.output_text.delta') text += event.delta
      if (event.type === 'response.completed') completed = event.response
    }
    assert.equal(text, 'A refund is not possible after 30 days.')
    assert.equal(completed?.status, 'completed')
    assert.ok(completed?.usage.output_tokens > 0)
  })

  test('reports a length cut as an incomplete response', async () => {
    server.setScript([say('partial', { finishReason: 'length' })])
    const res = await client.responses.create({ model: 'gpt-test', input: 'long essay' })
    assert.equal(res.status, 'incomplete')
    assert.equal(res.incomplete_details?.reason, 'max_output_tokens')
  })
})

describe('scripted failures', () => {
  test('answers 429 with retry-after, and the client retries into the next step', async () => {
    server.setScript([failWith(429, { retryAfterSeconds: 0 }), say('after retry')])
    const retrying = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 1 })
    const before = server.requests.length
    const res = await retrying.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
    assert.equal(res.choices[0]?.message.content, 'after retry')
    assert.equal(server.requests.length - before, 2)
  })

  test('answers 429 and 500 as API errors the client raises', async () => {
    server.setScript([failWith(429, { retryAfterSeconds: 7 }), failWith(500)])
    await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), (err: any) => {
      assert.equal(err.status, 429)
      assert.equal(err.headers.get('retry-after'), '7')
      return true
    })
    await assert.rejects(client.responses.create({ model: 'm', input: 'x' }), (err: any) => err.status === 500)
  })

  test('sends a body that is not JSON', async () => {
    server.setScript([malformed()])
    await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }))
  })

  test('answers slowly when the step has a delay, so client timeouts fire', async () => {
    server.setScript([say('late', { delayMs: 300 })])
    const impatient = new OpenAI({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0, timeout: 50 })
    await assert.rejects(impatient.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), /timed out/i)
  })

  test('chooses answers with a function of the request', async () => {
    server.setScript((req) => say(`you said ${req.body.messages.at(-1).content}`))
    const res = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] })
    assert.equal(res.choices[0]?.message.content, 'you said ping')
  })

  test('answers 500 naming the problem when a queue script runs out', async () => {
    server.setScript([])
    await assert.rejects(client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }), /no answer for request/)
  })

  test('rejects a request body that is not JSON with 400', async () => {
    const res = await fetch(`${server.baseURL}/chat/completions`, { method: 'POST', body: 'nope' })
    assert.equal(res.status, 400)
    assert.match(((await res.json()) as any).error.message, /JSON/)
  })
})
