// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import OpenAI from 'openai'
import { genAiFields, type Span } from '@sieve/core'
import { callTools, failWith, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { currentTraceId, exportStats, flush, init, shutdown, traceAgent, traceTool, wrapOpenAI, type SdkOptions } from '@sieve/sdk'

type Node = Span & { children: Node[] }

let sieve: RunningSieve
let model: FakeOpenAI

before(async () => {
  sieve = await startSieve({ apiKeys: new Map([['e2e-key', 'support']]) })
  model = await startFakeOpenAI({ script: [] })
})
after(async () => {
  await shutdown()
  await model.close()
  await sieve.stop()
})

async function readTrace(traceId: string): Promise<{ roots: Node[]; spanCount: number; projectId: string }> {
  await flush()
  const res = await fetch(`${sieve.url}/api/traces/${traceId}`, { headers: { authorization: 'Bearer e2e-key' } })
  assert.equal(res.status, 200, await res.clone().text())
  return ((await res.json()) as { trace: { roots: Node[]; spanCount: number; projectId: string } }).trace
}

const named = (nodes: Node[], name: string): Node[] => nodes.filter((n) => n.name === name)
const content = (span: Span, key: string) => JSON.parse(String(span.attributes[key]))

/** One support turn: a tool-calling chat completion, the tool, a streamed answer, then a Responses call. */
async function supportTurn(options: { input: string }) {
  model.setScript([
    callTools([{ id: 'call_1', name: 'lookup_customer_history', arguments: { email: 'ann@example.com' } }], { usage: { inputTokens: 50, outputTokens: 10 } }),
    say('Ann (ann@example.com) has two orders.', { usage: { inputTokens: 70, outputTokens: 8 } }),
    say('Summary sent to ann@example.com.', { usage: { inputTokens: 20, outputTokens: 6 } }),
  ])
  const openai = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
  const history = traceTool('lookup_customer_history', async (args: { email: string }) => ({ email: args.email, orders: 2 }))
  let traceId = ''
  const answer = await traceAgent('support-turn', { sessionId: 'sess-1', userId: 'user-1', input: options.input }, async () => {
    traceId = currentTraceId()!
    const messages: any[] = [
      { role: 'system', content: 'Help the customer.' },
      { role: 'user', content: options.input },
    ]
    const first = await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, temperature: 0 })
    const call = first.choices[0]!.message.tool_calls![0]!
    const result = await history(JSON.parse(call.type === 'function' ? call.function.arguments : '{}'))
    messages.push(first.choices[0]!.message, { role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
    let text = ''
    for await (const chunk of await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, stream: true, stream_options: { include_usage: true } })) {
      text += chunk.choices[0]?.delta.content ?? ''
    }
    const summary = await openai.responses.create({ model: 'gpt-4.1-mini', instructions: 'Summarize.', input: text })
    return summary.output_text
  })
  return { traceId, answer }
}

async function withSdk(options: SdkOptions, fn: () => Promise<void>) {
  const result = init({
    endpoint: sieve.url,
    apiKey: 'e2e-key',
    serviceName: 'support-bot',
    agentVersion: 'v12',
    promptVersion: 'refund-v3',
    environment: 'test',
    captureContent: true,
    ...options,
  })
  assert.equal(result.ok, true)
  try {
    await fn()
  } finally {
    await shutdown()
  }
}

describe('traces from the SDK read back from a running Sieve', () => {
  test('protobuf export: every GenAI attribute, parent links and resource attributes', async () => {
    await withSdk({ protocol: 'http/protobuf' }, async () => {
      const { traceId, answer } = await supportTurn({ input: 'What did I order? I am ann@example.com' })
      assert.equal(answer, 'Summary sent to ann@example.com.')
      const trace = await readTrace(traceId)
      assert.equal(trace.projectId, 'support')
      assert.equal(trace.spanCount, 5)
      assert.equal(trace.roots.length, 1)
      const agent = trace.roots[0]!
      assert.equal(agent.name, 'invoke_agent support-turn')
      assert.equal(agent.parentSpanId, '')
      // Ordered by when each started (the tool and the next call can share a start instant in storage).
      const children = [...agent.children].sort((a, b) => (BigInt(a.startTimeUnixNano) < BigInt(b.startTimeUnixNano) ? -1 : 1))
      assert.deepEqual(children.map((c) => c.name).sort(), [
        'chat gpt-4.1-mini',
        'chat gpt-4o-mini',
        'chat gpt-4o-mini',
        'execute_tool lookup_customer_history',
      ])
      for (const child of children) assert.equal(child.parentSpanId, agent.spanId)

      const agentFields = genAiFields(agent)
      assert.deepEqual(
        {
          op: agentFields.operation,
          agent: agentFields.agentName,
          version: agentFields.agentVersion,
          prompt: agentFields.promptVersion,
          session: agentFields.sessionId,
          user: agentFields.userId,
          env: agentFields.environment,
        },
        { op: 'invoke_agent', agent: 'support-turn', version: 'v12', prompt: 'refund-v3', session: 'sess-1', user: 'user-1', env: 'test' },
      )
      assert.equal(agent.serviceName, 'support-bot')
      assert.equal(agent.resource['telemetry.distro.name'], '@sieve/sdk')

      const [toolCall, streamed] = named(children, 'chat gpt-4o-mini') as [Node, Node]
      const tool = named(children, 'execute_tool lookup_customer_history')[0]!
      const responses = named(children, 'chat gpt-4.1-mini')[0]!
      assert.equal(streamed.attributes['gen_ai.request.stream'], true, 'the streamed call starts after the first one')
      const llm = genAiFields(toolCall)
      assert.deepEqual(
        {
          op: llm.operation,
          system: llm.system,
          req: llm.requestModel,
          res: llm.responseModel,
          in: llm.inputTokens,
          out: llm.outputTokens,
          session: llm.sessionId,
        },
        { op: 'chat', system: 'openai', req: 'gpt-4o-mini', res: 'gpt-4o-mini', in: 50, out: 10, session: 'sess-1' },
      )
      assert.equal(toolCall.kind, 'CLIENT')
      assert.equal(toolCall.attributes['gen_ai.request.temperature'], 0)
      assert.deepEqual(toolCall.attributes['gen_ai.response.finish_reasons'], ['tool_calls'])
      assert.deepEqual(content(toolCall, 'gen_ai.system_instructions'), [{ type: 'text', content: 'Help the customer.' }])
      assert.deepEqual(content(toolCall, 'gen_ai.output.messages')[0].parts[0], {
        type: 'tool_call',
        id: 'call_1',
        name: 'lookup_customer_history',
        arguments: { email: 'ann@example.com' },
      })

      assert.equal(genAiFields(tool).operation, 'execute_tool')
      assert.equal(tool.attributes['gen_ai.tool.name'], 'lookup_customer_history')
      assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call_1')
      assert.equal(tool.attributes['gen_ai.tool.call.arguments'], '{"email":"ann@example.com"}')
      assert.equal(tool.attributes['gen_ai.tool.call.result'], '{"email":"ann@example.com","orders":2}')

      assert.equal(streamed.attributes['gen_ai.request.stream'], true)
      assert.equal(genAiFields(streamed).inputTokens, 70)
      assert.equal(genAiFields(streamed).outputTokens, 8)
      assert.ok(Number(streamed.attributes['gen_ai.response.time_to_first_chunk']) >= 0)
      assert.deepEqual(content(streamed, 'gen_ai.output.messages'), [
        { role: 'assistant', parts: [{ type: 'text', content: 'Ann (ann@example.com) has two orders.' }], finish_reason: 'stop' },
      ])

      assert.equal(genAiFields(responses).requestModel, 'gpt-4.1-mini')
      assert.equal(genAiFields(responses).outputTokens, 6)
      assert.deepEqual(content(responses, 'gen_ai.input.messages'), [
        { role: 'user', parts: [{ type: 'text', content: 'Ann (ann@example.com) has two orders.' }] },
      ])
      assert.deepEqual(exportStats(), { exported: 5, dropped: 0, failed: 0, pending: 0 })
    })
  })

  test('JSON export with a redaction hook: no e-mail address leaves the process, structure stays valid', async () => {
    const redact = (text: string) => text.replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, '<email>')
    await withSdk({ protocol: 'http/json', redact }, async () => {
      const { traceId } = await supportTurn({ input: 'I am ann@example.com' })
      const trace = await readTrace(traceId)
      const all: Node[] = []
      const walk = (n: Node): void => {
        all.push(n)
        for (const child of n.children) walk(child)
      }
      trace.roots.forEach(walk)
      assert.equal(all.length, 5)
      assert.doesNotMatch(JSON.stringify(all), /ann@example\.com/)
      const tool = named(all, 'execute_tool lookup_customer_history')[0]!
      assert.equal(tool.attributes['gen_ai.tool.call.arguments'], '{"email":"<email>"}')
      const toolCall = named(all, 'chat gpt-4o-mini')[0]!
      assert.deepEqual(content(toolCall, 'gen_ai.output.messages')[0].parts[0].arguments, { email: '<email>' })
      assert.deepEqual(content(toolCall, 'gen_ai.input.messages'), [{ role: 'user', parts: [{ type: 'text', content: 'I am <email>' }] }])
    })
  })

  test('with content capture off, no prompt, completion, argument or result is recorded, the rest is', async () => {
    await withSdk({ captureContent: false }, async () => {
      const { traceId } = await supportTurn({ input: 'I am ann@example.com' })
      const trace = await readTrace(traceId)
      const text = JSON.stringify(trace)
      assert.doesNotMatch(text, /ann@example\.com|Help the customer|Summary sent/)
      for (const key of [
        'gen_ai.input.messages',
        'gen_ai.output.messages',
        'gen_ai.system_instructions',
        'gen_ai.tool.call.arguments',
        'gen_ai.tool.call.result',
      ]) {
        assert.ok(!text.includes(key), `${key} should not be recorded`)
      }
      const llm = trace.roots[0]!.children[0]!
      assert.equal(genAiFields(llm).inputTokens, 50)
    })
  })

  test('a failed LLM call is stored as an error span under the agent, and the agent span records the error', async () => {
    await withSdk({}, async () => {
      model.setScript([failWith(500, { message: 'model overloaded' })])
      const openai = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 }))
      let traceId = ''
      await assert.rejects(
        traceAgent('support-turn', {}, async () => {
          traceId = currentTraceId()!
          await openai.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
        }),
        (err: any) => err.status === 500,
      )
      const trace = await readTrace(traceId)
      const agent = trace.roots[0]!
      assert.equal(agent.status.code, 'ERROR')
      assert.equal(agent.attributes['error.type'], '500')
      const llm = agent.children[0]!
      assert.equal(llm.status.code, 'ERROR')
      assert.equal(llm.attributes['error.type'], '500')
      assert.equal(llm.events[0]?.name, 'exception')
    })
  })
})
