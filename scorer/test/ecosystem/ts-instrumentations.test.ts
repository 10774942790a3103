import assert from 'node:assert/strict'
import { after, before, beforeEach, describe, test } from 'node:test'
import { context, trace as otelTrace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel'
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai'
import { OpenAIInstrumentation as OpenTelemetryOpenAIInstrumentation } from '@opentelemetry/instrumentation-openai'
import { InMemoryLogRecordExporter, LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs'
import { generateText, stepCountIs, tool, type ModelMessage } from 'ai'
import OpenAI from 'openai'
import * as openaiModule from 'openai'
import { z } from 'zod'
import { conversationOf, genAiFields, withSpanLogEvents, type Conversation, type Span, type Trace } from '@sieve/core'
import { resolveChecksConfig, scoreTrace } from '@sieve/scoring'
import { callTools, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { asReceived, logEventsAsReceived, tracesOf } from '@sieve/testkit/agent-trace'

/*
 * Traces as the ecosystem's own instrumentations write them, with no Sieve SDK: the Vercel AI SDK
 * (its ai.* telemetry and its GenAI-conventions integration), OpenInference and OpenTelemetry's own
 * instrumentation (whose messages are log records) around the openai client, against testkit's
 * model server, sent through the collector's OTLP decoders. The same
 * two-turn conversation each time: the conversation, facts, checks and judge transcript must be
 * those of an SDK trace.
 */

const memory = new InMemorySpanExporter()
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(memory)] })
let model: FakeOpenAI

before(async () => {
  otelTrace.setGlobalTracerProvider(provider)
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  model = await startFakeOpenAI({ script: [] })
})
after(async () => {
  await provider.shutdown()
  await model.close()
})
beforeEach(() => memory.reset())

const SYSTEM = 'You are the support agent of Acme.'
const FIRST = 'Hi, I am ann@example.com. Please refund order A-1.'
const REFUNDED = 'Refunded A-1. A receipt goes to billing@acme-refunds.example.'
const SECOND = 'Thanks! When will I see the money?'
const LATER = 'Within five business days.'

/** The model's side of both turns: a refund call, its answer, then a plain answer. */
function script() {
  model.setScript([
    callTools([{ id: 'call_1', name: 'process_refund', arguments: { order_id: 'A-1' } }], { usage: { inputTokens: 40, outputTokens: 9 } }),
    say(REFUNDED, { usage: { inputTokens: 61, outputTokens: 14 } }),
    say(LATER, { usage: { inputTokens: 80, outputTokens: 6 } }),
  ])
}

/** Both turns' traces as Sieve receives them, in the order the turns happened. */
function received(): Trace[] {
  return tracesOf(asReceived(memory.getFinishedSpans(), 'eco'))
}

const EXPECTED = [
  `system: ${SYSTEM}`,
  `user: ${FIRST}`,
  'tool_call process_refund: {"order_id":"A-1"}',
  'tool_result process_refund: {"order_id":"A-1","status":"refunded"}',
  `assistant: ${REFUNDED}`,
  `user: ${SECOND}`,
  `assistant: ${LATER}`,
]

const shown = (c: Conversation) =>
  c.turns.map(
    (t) => `${t.role}${t.name ? ` ${t.name}` : ''}: ${t.role === 'tool_call' || t.role === 'tool_result' ? JSON.stringify(JSON.parse(t.text)) : t.text}`,
  )

const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: ['process_refund'] } } })

/** What every instrumentation must give: the conversation, model and tokens, the checks and the judge's transcript. */
function assertReadLikeAnSdkTrace(traces: Trace[], o: { toolSpans: boolean }) {
  assert.equal(traces.length, 2, 'one trace per turn')
  assert.deepEqual(
    shown(conversationOf(traces)).filter((t) => !t.startsWith('system') || t === `system: ${SYSTEM}`),
    EXPECTED,
  )
  const [first] = traces as [Trace, Trace]
  const modelCalls = first.spans.map(genAiFields).filter((f) => f.operation === 'chat')
  assert.equal(modelCalls.length, 2, 'two model calls in the first turn')
  for (const f of modelCalls) assert.equal(f.requestModel, 'gpt-4o-mini')
  assert.deepEqual(modelCalls.map((f) => [f.inputTokens, f.outputTokens]).sort(), [
    [40, 9],
    [61, 14],
  ])
  if (o.toolSpans)
    assert.deepEqual(
      first.spans
        .map(genAiFields)
        .filter((f) => f.operation === 'execute_tool')
        .map((f) => f.toolName),
      ['process_refund'],
    )
  const scored = scoreTrace(first, checks)
  const failed = scored.results.filter((r) => !r.passed).map((r) => r.name)
  assert.ok(failed.includes('prohibited_tools'), `prohibited_tools fires (failed: ${failed.join(', ')})`)
  assert.ok(failed.includes('pii_echo'), `pii_echo fires on the address the user never gave (failed: ${failed.join(', ')})`)
  // What the judge's transcript is numbered from (judge/src/transcript.ts).
  const conversation = conversationOf(first)
  assert.deepEqual(
    conversation.turns.map((t) => t.role).filter((r) => r !== 'system'),
    ['user', 'tool_call', 'tool_result', 'assistant'],
  )
  assert.equal(conversation.contentMissing, false)
}

describe('the Vercel AI SDK', () => {
  const acme = () => createOpenAICompatible({ name: 'acme', baseURL: model.baseURL, apiKey: 'k' })
  const refund = tool({
    description: 'Refund an order',
    inputSchema: z.object({ order_id: z.string() }),
    execute: async ({ order_id }) => ({ order_id, status: 'refunded' }),
  })

  async function twoTurns(integration: () => LegacyOpenTelemetry | OpenTelemetry) {
    script()
    const telemetry = { isEnabled: true, functionId: 'support', integrations: [integration()] }
    const history: ModelMessage[] = [{ role: 'user', content: FIRST }]
    const one = await generateText({
      model: acme()('gpt-4o-mini'),
      system: SYSTEM,
      messages: history,
      tools: { process_refund: refund },
      stopWhen: stepCountIs(3),
      experimental_telemetry: telemetry,
    })
    history.push(...one.response.messages, { role: 'user', content: SECOND })
    await generateText({
      model: acme()('gpt-4o-mini'),
      system: SYSTEM,
      messages: history,
      tools: { process_refund: refund },
      stopWhen: stepCountIs(3),
      experimental_telemetry: telemetry,
    })
    await provider.forceFlush()
  }

  test('ai.* telemetry (experimental_telemetry, LegacyOpenTelemetry): conversation, tools, model, tokens, checks and transcript', async () => {
    await twoTurns(() => new LegacyOpenTelemetry())
    const traces = received()
    assert.ok(
      traces[0]!.spans.some((s) => s.name.startsWith('ai.generateText.doGenerate')),
      'the ai.* span names',
    )
    assertReadLikeAnSdkTrace(traces, { toolSpans: true })
    // The agent is the telemetry's functionId.
    assert.equal(genAiFields(traces[0]!.spans.find((s) => s.parentSpanId === '')!).agentName, 'support')
  })

  test('the GenAI-conventions integration (OpenTelemetry): the same reading', async () => {
    await twoTurns(() => new OpenTelemetry())
    assertReadLikeAnSdkTrace(received(), { toolSpans: true })
  })
})

/** Both turns through the openai client, each under the agent's own turn span, as an app with an instrumented client has them. */
async function runTurns(): Promise<void> {
  script()
  const openai = new OpenAI({ baseURL: model.baseURL, apiKey: 'k', maxRetries: 0 })
  const tools = [
    { type: 'function' as const, function: { name: 'process_refund', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } },
  ]
  const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: FIRST },
  ]
  const tracer = otelTrace.getTracer('agent')
  await tracer.startActiveSpan('turn 1', async (span) => {
    const first = (await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })).choices[0]!.message
    const call = first.tool_calls![0]!
    messages.push(first, { role: 'tool', tool_call_id: call.id, content: JSON.stringify({ order_id: 'A-1', status: 'refunded' }) })
    messages.push((await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })).choices[0]!.message)
    span.end()
  })
  await tracer.startActiveSpan('turn 2', async (span) => {
    messages.push({ role: 'user', content: SECOND })
    await openai.chat.completions.create({ model: 'gpt-4o-mini', messages, tools })
    span.end()
  })
}

describe('OpenInference around the openai client', () => {
  test('llm.input_messages / llm.output_messages: conversation, tool calls from the messages, model, tokens, checks and transcript', async () => {
    const instrumentation = new OpenAIInstrumentation()
    instrumentation.setTracerProvider(provider)
    instrumentation.manuallyInstrument(OpenAI)
    await runTurns()
    await provider.forceFlush()
    instrumentation.disable()
    const traces = received()
    assert.ok(
      traces[0]!.spans.some((s) => s.attributes['openinference.span.kind'] === 'LLM'),
      'OpenInference attributes',
    )
    assertReadLikeAnSdkTrace(traces, { toolSpans: false })
  })
})

describe("OpenTelemetry's own instrumentation of the openai client (@opentelemetry/instrumentation-openai)", () => {
  test('the messages it sends as log records, one per message within one clock tick, are the conversation; model, tokens, checks and transcript', async () => {
    const logs = new InMemoryLogRecordExporter()
    const instrumentation = new OpenTelemetryOpenAIInstrumentation({ captureMessageContent: true })
    instrumentation.setTracerProvider(provider)
    instrumentation.setLoggerProvider(new LoggerProvider({ processors: [new SimpleLogRecordProcessor({ exporter: logs })] }))
    // Patched in place, as its module hook would patch the openai module an app loads.
    for (const definition of instrumentation.getModuleDefinitions()) definition.patch?.(openaiModule)
    try {
      await runTurns()
      await provider.forceFlush()
    } finally {
      for (const definition of instrumentation.getModuleDefinitions()) definition.unpatch?.(openaiModule)
    }
    const spans = received()
    const first = spans[0]!.spans.find((s) => genAiFields(s).operation === 'chat')!
    assert.ok(!first.attributes['gen_ai.input.messages'] && first.events.length === 0, 'no content on the spans themselves')
    const events = logEventsAsReceived(logs.getFinishedLogRecords())
    assertReadLikeAnSdkTrace(
      spans.map((trace) => withSpanLogEvents(trace, events)),
      { toolSpans: false },
    )
  })
})

describe('precedence when a span carries several schemes', () => {
  test('the GenAI conventions win over OpenInference and the AI SDK names; those over nothing', () => {
    const base = asReceived([], 'eco')
    assert.deepEqual(base, [])
    const span = (attributes: Span['attributes']): Span => ({
      projectId: 'p',
      traceId: 'a'.repeat(32),
      spanId: 'b'.repeat(16),
      parentSpanId: '',
      traceState: '',
      name: 'x',
      kind: 'CLIENT',
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000000000001',
      status: { code: 'UNSET', message: '' },
      flags: 0,
      serviceName: 's',
      scope: { name: '', version: '', attributes: {} },
      attributes,
      resource: {},
      events: [],
      links: [],
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    })
    const both = span({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'from-genai',
      'gen_ai.usage.input_tokens': 1,
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'genai' }] }]),
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'from-openinference',
      'llm.token_count.prompt': 2,
      'llm.input_messages.0.message.role': 'user',
      'llm.input_messages.0.message.content': 'openinference',
    })
    assert.deepEqual([genAiFields(both).requestModel, genAiFields(both).inputTokens], ['from-genai', 1])
    assert.deepEqual(
      conversationOf({ projectId: 'p', traceId: 'a'.repeat(32), spans: [both], complete: true }).turns.map((t) => t.text),
      ['genai'],
    )
    const oiAndAi = span({
      'openinference.span.kind': 'LLM',
      'llm.model_name': 'from-openinference',
      'ai.operationId': 'ai.generateText.doGenerate',
      'ai.model.id': 'from-ai',
    })
    assert.deepEqual([genAiFields(oiAndAi).operation, genAiFields(oiAndAi).requestModel], ['chat', 'from-openinference'])
  })
})
