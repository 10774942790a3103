import assert from 'node:assert/strict'
import { after, before, beforeEach, test } from 'node:test'
import { trace as otel } from '@opentelemetry/api'
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import OpenAI from 'openai'
import { conversationOf, type Conversation } from '@sieve/core'
import { callTools, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { asReceived, tracesOf } from '@sieve/testkit/agent-trace'
import { flush, init, shutdown, traceAgent, traceTool, wrapOpenAI } from '@sieve/sdk'

/**
 * Conversations as real agents record them — the SDK's agent and tool wrappers around the real
 * `openai` client, talking to the local OpenAI-compatible server — read back by the conversation
 * model. Each expected conversation is written by hand: order, every assistant turn, no duplicate.
 */

let memory = new InMemorySpanExporter()
let model: FakeOpenAI
let openai: OpenAI

before(async () => {
  model = await startFakeOpenAI({ script: [] })
  init({ exporter: memory, serviceName: 'support-bot', scheduledDelayMillis: 10, captureContent: true })
  openai = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
})
after(async () => {
  await shutdown()
  await model.close()
})
beforeEach(async () => {
  await flush()
  memory.reset()
})

async function recorded(): Promise<Conversation> {
  await flush()
  return conversationOf(tracesOf(asReceived(memory.getFinishedSpans())))
}

const shown = (c: Conversation) =>
  c.turns.map((t) => {
    if (t.role === 'tool_call') return `call ${t.name}(${t.text})`
    if (t.role === 'tool_result') return `result ${t.name}: ${t.error ? `[error] ${t.error}` : t.text}`
    return `${t.role}: ${t.text}`
  })

const SYSTEM = 'You are the support agent of Acme.'
type Messages = OpenAI.Chat.Completions.ChatCompletionMessageParam[]

const lookupOrder = traceTool('lookup_order', async ({ order_id }: { order_id: string }) => ({ order_id, status: 'delivered' }))

/** One turn of the usual agent loop: call the model, run the tools it asks for, until it answers. */
async function agentLoop(messages: Messages, tools: Record<string, (args: any) => Promise<unknown>>, stream = false): Promise<string> {
  for (;;) {
    if (stream) {
      let text = ''
      for await (const chunk of await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } }))
        text += chunk.choices[0]?.delta.content ?? ''
      messages.push({ role: 'assistant', content: text })
      return text
    }
    const reply = (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0]!.message
    messages.push(reply)
    if (!reply.tool_calls?.length) return reply.content ?? ''
    // Parallel calls run together, as agents run them.
    const results = await Promise.all(
      reply.tool_calls.map(async (call) => {
        if (call.type !== 'function') throw new Error('unexpected tool type')
        try {
          return JSON.stringify(await tools[call.function.name]!(JSON.parse(call.function.arguments)))
        } catch (err) {
          return `error: ${(err as Error).message}`
        }
      }),
    )
    reply.tool_calls.forEach((call, i) => messages.push({ role: 'tool', tool_call_id: call.id, content: results[i]! }))
  }
}

test('single turn with a tool: system, user, the call, its result once, the answer', async () => {
  model.setScript([callTools([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }]), say('Order A-1001 was delivered.')])
  await traceAgent('support', { input: 'Where is A-1001?' }, () =>
    agentLoop(
      [
        { role: 'system', content: SYSTEM },
        { role: 'user', content: 'Where is A-1001?' },
      ],
      { lookup_order: lookupOrder },
    ),
  )
  assert.deepEqual(shown(await recorded()), [
    `system: ${SYSTEM}`,
    'user: Where is A-1001?',
    'call lookup_order({"order_id":"A-1001"})',
    'result lookup_order: {"order_id":"A-1001","status":"delivered"}',
    'assistant: Order A-1001 was delivered.',
  ])
})

test('parallel tool calls: both calls, then both results in the order the model was given them', async () => {
  const slow = traceTool('check_stock', async ({ sku }: { sku: string }) => {
    await new Promise((r) => setTimeout(r, 30))
    return { sku, stock: 3 }
  })
  model.setScript([
    callTools([
      { id: 'call_a', name: 'check_stock', arguments: { sku: 'S-1' } },
      { id: 'call_b', name: 'lookup_order', arguments: { order_id: 'A-7' } },
    ]),
    say('S-1 is in stock and A-7 was delivered.'),
  ])
  await traceAgent('support', { input: 'Stock of S-1 and status of A-7?' }, () =>
    agentLoop([{ role: 'user', content: 'Stock of S-1 and status of A-7?' }], { check_stock: slow, lookup_order: lookupOrder }),
  )
  // lookup_order's span ends first; the conversation keeps the model's order.
  assert.deepEqual(shown(await recorded()), [
    'user: Stock of S-1 and status of A-7?',
    'call check_stock({"sku":"S-1"})',
    'call lookup_order({"order_id":"A-7"})',
    'result check_stock: {"sku":"S-1","stock":3}',
    'result lookup_order: {"order_id":"A-7","status":"delivered"}',
    'assistant: S-1 is in stock and A-7 was delivered.',
  ])
})

test('a tool error and a retry: the failed result is kept with its error, then the second call and its result', async () => {
  let attempts = 0
  const flaky = traceTool('lookup_order', async ({ order_id }: { order_id: string }) => {
    if (attempts++ === 0) throw new Error('order service timeout')
    return { order_id, status: 'delivered' }
  })
  model.setScript([
    callTools([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1' } }]),
    callTools([{ id: 'call_2', name: 'lookup_order', arguments: { order_id: 'A-1' } }]),
    say('A-1 was delivered.'),
  ])
  await traceAgent('support', { input: 'Where is A-1?' }, () => agentLoop([{ role: 'user', content: 'Where is A-1?' }], { lookup_order: flaky }))
  assert.deepEqual(shown(await recorded()), [
    'user: Where is A-1?',
    'call lookup_order({"order_id":"A-1"})',
    'result lookup_order: [error] order service timeout',
    'call lookup_order({"order_id":"A-1"})',
    'result lookup_order: {"order_id":"A-1","status":"delivered"}',
    'assistant: A-1 was delivered.',
  ])
})

test('a streamed answer after a tool call', async () => {
  model.setScript([callTools([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'B-2' } }]), say('B-2 was delivered yesterday.')])
  await traceAgent('support', { input: 'And B-2?' }, async () => {
    const messages: Messages = [{ role: 'user', content: 'And B-2?' }]
    const first = (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0]!.message
    const call = first.tool_calls![0]!
    messages.push(first, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(await lookupOrder({ order_id: 'B-2' })) })
    return agentLoop(messages, {}, true)
  })
  assert.deepEqual(shown(await recorded()), [
    'user: And B-2?',
    'call lookup_order({"order_id":"B-2"})',
    'result lookup_order: {"order_id":"B-2","status":"delivered"}',
    'assistant: B-2 was delivered yesterday.',
  ])
})

test('a three-turn session: one trace per turn, every turn once, in order, the repeated "yes" twice', async () => {
  model.setScript([
    say('Sorry! Should I escalate or offer store credit?'),
    callTools([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }]),
    say('Store credit of $40 issued.'),
    say('Anything else?'),
  ])
  const history: Messages = [{ role: 'system', content: SYSTEM }]
  for (const user of ['My order A-1001 arrived broken.', 'Store credit, yes.', 'yes']) {
    history.push({ role: 'user', content: user })
    await traceAgent('support', { sessionId: 'sess-42', input: user }, () => agentLoop(history, { lookup_order: lookupOrder }))
  }
  const c = await recorded()
  assert.equal(c.traceIds.length, 3)
  assert.deepEqual(shown(c), [
    `system: ${SYSTEM}`,
    'user: My order A-1001 arrived broken.',
    'assistant: Sorry! Should I escalate or offer store credit?',
    'user: Store credit, yes.',
    'call lookup_order({"order_id":"A-1001"})',
    'result lookup_order: {"order_id":"A-1001","status":"delivered"}',
    'assistant: Store credit of $40 issued.',
    'user: yes',
    'assistant: Anything else?',
  ])
})

test('OpenLLMetry-style indexed attributes, written with the OpenTelemetry API', async () => {
  const tracer = otel.getTracer('openllmetry-style')
  const span = tracer.startSpan('openai.chat', {
    attributes: {
      'gen_ai.system': 'openai',
      'llm.request.type': 'chat',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.prompt.0.role': 'system',
      'gen_ai.prompt.0.content': SYSTEM,
      'gen_ai.prompt.1.role': 'user',
      'gen_ai.prompt.1.content': 'Refund order 7?',
      'gen_ai.prompt.2.role': 'assistant',
      'gen_ai.prompt.2.content': 'Which order?',
      'gen_ai.prompt.3.role': 'user',
      'gen_ai.prompt.3.content': 'Order 7.',
      'gen_ai.completion.0.role': 'assistant',
      'gen_ai.completion.0.content': 'Refunded order 7.',
    },
  })
  span.end()
  assert.deepEqual(shown(await recorded()), [
    `system: ${SYSTEM}`,
    'user: Refund order 7?',
    'assistant: Which order?',
    'user: Order 7.',
    'assistant: Refunded order 7.',
  ])
})

// Last: it restarts the SDK with content capture off.
test('content capture off: no turns but the tool call names, and the conversation says content is missing', async () => {
  await shutdown()
  // A shut down exporter takes no more spans.
  memory = new InMemorySpanExporter()
  init({ exporter: memory, serviceName: 'support-bot', scheduledDelayMillis: 10, captureContent: false })
  openai = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
  model.setScript([callTools([{ id: 'call_1', name: 'lookup_order', arguments: { order_id: 'A-1001' } }]), say('Delivered.')])
  await traceAgent('support', { input: 'Where is A-1001?' }, () => agentLoop([{ role: 'user', content: 'Where is A-1001?' }], { lookup_order: lookupOrder }))
  const c = await recorded()
  assert.equal(c.contentMissing, true)
  assert.deepEqual(shown(c), ['call lookup_order()'])
})
