import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import OpenAI from 'openai'
import { callTools, failWith, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { currentTraceId, flush, init, shutdown, traceAgent, traceTool, wrapOpenAI } from '@sieve/sdk'
import { byName, json, parentId } from './helpers.js'

const memory = new InMemorySpanExporter()
let model: FakeOpenAI
let openai: OpenAI
let plain: OpenAI

before(async () => {
  model = await startFakeOpenAI({ script: [] })
  const result = init({
    exporter: memory,
    serviceName: 'support-bot',
    agentVersion: 'v12',
    promptVersion: 'refund-v3',
    scheduledDelayMillis: 10,
    captureContent: true,
  })
  assert.equal(result.mode, 'global')
  openai = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
  plain = new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 })
})
after(async () => {
  await shutdown()
  await model.close()
})
beforeEach(async () => {
  await flush()
  memory.reset()
})

async function spans() {
  await flush()
  return memory.getFinishedSpans()
}

describe('chat completions', () => {
  test('an agent turn records agent, LLM and tool spans with GenAI attributes and parent links', async () => {
    model.setScript([
      callTools([{ id: 'call_7', name: 'check_order_status', arguments: { order_id: 'A1' } }], { usage: { inputTokens: 40, outputTokens: 9 } }),
      say('Your order A1 shipped.', { usage: { inputTokens: 60, outputTokens: 6 } }),
    ])
    const checkOrder = traceTool('check_order_status', async ({ order_id }: { order_id: string }) => ({ order_id, status: 'shipped' }))
    let traceId: string | undefined
    const answer = await traceAgent('support-turn', { sessionId: 's-1', userId: 'u-1', input: 'Where is A1?' }, async () => {
      traceId = currentTraceId()
      const messages: any[] = [
        { role: 'system', content: 'You are a support agent.' },
        { role: 'user', content: 'Where is A1?' },
      ]
      const first = await openai.chat.completions.create({
        model: 'gpt-4o-mini',
        messages,
        temperature: 0.2,
        max_tokens: 200,
        tools: [{ type: 'function', function: { name: 'check_order_status', parameters: {} } }],
      })
      const call = first.choices[0]!.message.tool_calls![0]!
      assert.equal(call.type, 'function')
      const result = await checkOrder(JSON.parse(call.type === 'function' ? call.function.arguments : '{}'))
      messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
      const second = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })
      return second.choices[0]!.message.content!
    })
    assert.equal(answer, 'Your order A1 shipped.')

    const all = await spans()
    assert.equal(all.length, 4)
    const agent = byName(all, 'invoke_agent support-turn')
    const tool = byName(all, 'execute_tool check_order_status')
    const [llm1, llm2] = all.filter((s) => s.name === 'chat gpt-4o-mini')
    assert.ok(llm1 && llm2)
    assert.equal(traceId, agent.spanContext().traceId)
    for (const child of [tool, llm1, llm2]) {
      assert.equal(parentId(child), agent.spanContext().spanId)
      assert.equal(child.spanContext().traceId, agent.spanContext().traceId)
    }
    assert.equal(parentId(agent), undefined)

    assert.deepEqual(
      { ...agent.attributes, 'gen_ai.input.messages': json(agent, 'gen_ai.input.messages'), 'gen_ai.output.messages': json(agent, 'gen_ai.output.messages') },
      {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support-turn',
        'gen_ai.agent.version': 'v12',
        'sieve.prompt.version': 'refund-v3',
        'gen_ai.conversation.id': 's-1',
        'user.id': 'u-1',
        'gen_ai.input.messages': [{ role: 'user', parts: [{ type: 'text', content: 'Where is A1?' }] }],
        'gen_ai.output.messages': [{ role: 'assistant', parts: [{ type: 'text', content: 'Your order A1 shipped.' }], finish_reason: 'stop' }],
      },
    )
    assert.equal(llm1.kind, 2 /* CLIENT */)
    assert.equal(llm1.attributes['gen_ai.provider.name'], 'openai')
    assert.equal(llm1.attributes['gen_ai.request.model'], 'gpt-4o-mini')
    assert.equal(llm1.attributes['gen_ai.request.temperature'], 0.2)
    assert.equal(llm1.attributes['gen_ai.request.max_tokens'], 200)
    assert.equal(llm1.attributes['gen_ai.response.model'], 'gpt-4o-mini')
    assert.match(String(llm1.attributes['gen_ai.response.id']), /^chatcmpl-/)
    assert.deepEqual(llm1.attributes['gen_ai.response.finish_reasons'], ['tool_calls'])
    assert.equal(llm1.attributes['gen_ai.usage.input_tokens'], 40)
    assert.equal(llm1.attributes['gen_ai.usage.output_tokens'], 9)
    assert.equal(llm1.attributes['gen_ai.conversation.id'], 's-1')
    assert.equal(llm1.attributes['server.address'], '127.0.0.1')
    assert.equal(llm1.attributes['http.response.status_code'], 200)
    assert.deepEqual(json(llm1, 'gen_ai.system_instructions'), [{ type: 'text', content: 'You are a support agent.' }])
    assert.deepEqual(json(llm1, 'gen_ai.input.messages'), [{ role: 'user', parts: [{ type: 'text', content: 'Where is A1?' }] }])
    assert.deepEqual(json(llm1, 'gen_ai.output.messages'), [
      {
        role: 'assistant',
        parts: [{ type: 'tool_call', id: 'call_7', name: 'check_order_status', arguments: { order_id: 'A1' } }],
        finish_reason: 'tool_call',
      },
    ])
    assert.equal(json(llm1, 'gen_ai.tool.definitions')[0].function.name, 'check_order_status')
    assert.deepEqual(json(llm2, 'gen_ai.input.messages').slice(1), [
      { role: 'assistant', parts: [{ type: 'tool_call', id: 'call_7', name: 'check_order_status', arguments: { order_id: 'A1' } }] },
      { role: 'tool', parts: [{ type: 'tool_call_response', id: 'call_7', response: '{"order_id":"A1","status":"shipped"}' }] },
    ])
    assert.equal(llm2.attributes['gen_ai.usage.input_tokens'], 60)

    assert.deepEqual(tool.attributes, {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'check_order_status',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': 'call_7',
      'gen_ai.tool.call.arguments': '{"order_id":"A1"}',
      'gen_ai.tool.call.result': '{"order_id":"A1","status":"shipped"}',
    })
    assert.equal(agent.resource.attributes['service.name'], 'support-bot')
    assert.equal(agent.resource.attributes['sieve.agent.version'], 'v12')
    assert.equal(agent.resource.attributes['telemetry.distro.name'], '@sieve/sdk')
  })

  test('a stream reaches the caller chunk for chunk as unwrapped, and its span gathers content, tool calls and usage', async () => {
    const step = {
      type: 'reply' as const,
      text: 'Let me check that order.',
      toolCalls: [{ id: 'c1', name: 'check_order_status', arguments: { order_id: 'B2' } }],
    }
    const params = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'B2?' }], stream: true as const, stream_options: { include_usage: true } }
    const read = async (client: OpenAI) => {
      const chunks: unknown[] = []
      for await (const chunk of await client.chat.completions.create(params)) chunks.push({ ...chunk, created: 0 })
      return chunks
    }
    model.setScript([step, step])
    const wrapped = await read(openai)
    const unwrapped = await read(plain)
    assert.deepEqual(
      wrapped.map((c: any) => ({ ...c, id: '' })),
      unwrapped.map((c: any) => ({ ...c, id: '' })),
    )

    const [llm] = await spans()
    assert.ok(llm)
    assert.equal(llm.attributes['gen_ai.request.stream'], true)
    assert.deepEqual(llm.attributes['gen_ai.response.finish_reasons'], ['tool_calls'])
    assert.ok(Number(llm.attributes['gen_ai.usage.input_tokens']) > 0)
    assert.ok(Number(llm.attributes['gen_ai.usage.output_tokens']) > 0)
    assert.ok(Number(llm.attributes['gen_ai.response.time_to_first_chunk']) >= 0)
    assert.deepEqual(json(llm, 'gen_ai.output.messages'), [
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Let me check that order.' },
          { type: 'tool_call', id: 'c1', name: 'check_order_status', arguments: { order_id: 'B2' } },
        ],
        finish_reason: 'tool_call',
      },
    ])
  })

  test('a stream the caller stops reading early still ends its span', async () => {
    model.setScript([say('one two three four five six seven eight nine ten')])
    const stream = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'count' }], stream: true })
    for await (const _ of stream) break
    const all = await spans()
    assert.equal(all.length, 1)
  })

  test('a teed stream gives both readers every chunk and ends the span once', async () => {
    model.setScript([say('split me into several chunks please')])
    const stream = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true })
    const [left, right] = stream.tee()
    const read = async (s: AsyncIterable<any>) => {
      let text = ''
      for await (const chunk of s) text += chunk.choices[0]?.delta.content ?? ''
      return text
    }
    assert.deepEqual(await Promise.all([read(left), read(right)]), ['split me into several chunks please', 'split me into several chunks please'])
    const all = await spans()
    assert.equal(all.length, 1)
    assert.deepEqual(json(all[0]!, 'gen_ai.output.messages')[0].parts, [{ type: 'text', content: 'split me into several chunks please' }])
  })

  test('an API error reaches the caller unchanged and marks the span with error.type', async () => {
    model.setScript([failWith(500, { message: 'upstream broke' })])
    const err = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).then(
      () => assert.fail('should reject'),
      (e) => e,
    )
    assert.ok(err instanceof OpenAI.InternalServerError)
    const [llm] = await spans()
    assert.equal(llm?.status.code, 2 /* ERROR */)
    assert.equal(llm?.attributes['error.type'], '500')
    assert.equal(llm?.events[0]?.name, 'exception')
  })

  test('retries done by the client show up as a resend count on one span', async () => {
    model.setScript([failWith(429, { retryAfterSeconds: 0 }), say('ok')])
    const retrying = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 2 }))
    const res = await retrying.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] })
    assert.equal(res.choices[0]?.message.content, 'ok')
    const all = await spans()
    assert.equal(all.length, 1)
    assert.equal(all[0]?.attributes['http.request.resend_count'], 1)
    assert.equal(all[0]?.attributes['http.response.status_code'], 200)
  })

  test("the message attributes are byte for byte JSON.stringify of the conventions' messages", async () => {
    model.setScript([{ type: 'reply', text: 'Say "hi"\n\u2028é 😀', toolCalls: [{ id: 'c2', name: 'f', arguments: { a: [1, null] } }] }])
    const messages: any[] = [
      { role: 'system', content: 'Be "brief".' },
      {
        role: 'developer',
        content: [
          { type: 'text', text: 'dev' },
          { type: 'refusal', refusal: 'r' },
        ],
      },
      {
        role: 'user',
        name: 'bob',
        content: [
          { type: 'text', text: 'see' },
          { type: 'image_url', image_url: { url: 'https://x/y.png' } },
          { type: 'input_audio', input_audio: { format: 'wav', data: 'AAA' } },
        ],
      },
      {
        role: 'assistant',
        content: 'calling',
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{ "x" : 1.0, "y": "\\u00e9" }' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: [{ type: 'text', text: 'ok' }] },
    ]
    await openai.chat.completions.create({ model: 'm', messages })
    const [llm] = await spans()
    assert.ok(llm)
    assert.equal(
      llm.attributes['gen_ai.system_instructions'],
      JSON.stringify([
        { type: 'text', content: 'Be "brief".' },
        { type: 'text', content: 'dev' },
        { type: 'text', content: 'r' },
      ]),
    )
    assert.equal(
      llm.attributes['gen_ai.input.messages'],
      JSON.stringify([
        {
          role: 'user',
          parts: [
            { type: 'text', content: 'see' },
            { type: 'uri', modality: 'image', uri: 'https://x/y.png' },
            { type: 'blob', modality: 'audio', mime_type: 'audio/wav', content: '' },
          ],
          name: 'bob',
        },
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'calling' },
            { type: 'tool_call', id: 'c1', name: 'f', arguments: { x: 1, y: 'é' } },
          ],
        },
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: '[{"type":"text","text":"ok"}]' }] },
      ]),
    )
    assert.equal(
      llm.attributes['gen_ai.output.messages'],
      JSON.stringify([
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'Say "hi"\n\u2028é 😀' },
            { type: 'tool_call', id: 'c2', name: 'f', arguments: { a: [1, null] } },
          ],
          finish_reason: 'tool_call',
        },
      ]),
    )
  })

  test('withResponse() still works on a wrapped client', async () => {
    model.setScript([say('raw')])
    const { data, response } = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }).withResponse()
    assert.equal(data.choices[0]?.message.content, 'raw')
    assert.equal(response.status, 200)
  })
})

describe('responses', () => {
  test('a plain response records instructions, input, function calls and usage', async () => {
    model.setScript([
      {
        type: 'reply',
        text: 'Checking.',
        toolCalls: [{ id: 'fc1', name: 'lookup_customer_history', arguments: { customer_id: 'C9' } }],
        usage: { inputTokens: 30, outputTokens: 12 },
      },
    ])
    const res = await openai.responses.create({
      model: 'gpt-4.1',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'History of C9?' }],
      max_output_tokens: 100,
    })
    assert.equal(res.output_text, 'Checking.')
    const [llm] = await spans()
    assert.ok(llm)
    assert.equal(llm.name, 'chat gpt-4.1')
    assert.equal(llm.attributes['gen_ai.operation.name'], 'chat')
    assert.equal(llm.attributes['gen_ai.request.max_tokens'], 100)
    assert.equal(llm.attributes['gen_ai.response.id'], res.id)
    assert.deepEqual(llm.attributes['gen_ai.response.finish_reasons'], ['tool_call'])
    assert.equal(llm.attributes['gen_ai.usage.input_tokens'], 30)
    assert.equal(llm.attributes['gen_ai.usage.output_tokens'], 12)
    assert.deepEqual(json(llm, 'gen_ai.system_instructions'), [{ type: 'text', content: 'Be brief.' }])
    assert.deepEqual(json(llm, 'gen_ai.input.messages'), [{ role: 'user', parts: [{ type: 'text', content: 'History of C9?' }] }])
    assert.deepEqual(json(llm, 'gen_ai.output.messages'), [
      {
        role: 'assistant',
        parts: [
          { type: 'text', content: 'Checking.' },
          { type: 'tool_call', id: 'fc1', name: 'lookup_customer_history', arguments: { customer_id: 'C9' } },
        ],
        finish_reason: 'tool_call',
      },
    ])
  })

  test('a streamed response is read unchanged and its span takes the final response', async () => {
    model.setScript([say('No refunds after 30 days.', { usage: { inputTokens: 8, outputTokens: 7 } })])
    let text = ''
    for await (const event of await openai.responses.create({ model: 'gpt-4.1', input: 'refund?', stream: true })) {
      if (event.type === 'response.output_text.delta') text += event.delta
    }
    assert.equal(text, 'No refunds after 30 days.')
    const [llm] = await spans()
    assert.equal(llm?.attributes['gen_ai.usage.output_tokens'], 7)
    assert.deepEqual(llm?.attributes['gen_ai.response.finish_reasons'], ['stop'])
    assert.deepEqual(json(llm!, 'gen_ai.output.messages')[0].parts, [{ type: 'text', content: 'No refunds after 30 days.' }])
  })
})
