import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api'
import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/**
 * Realistic agent traffic for benchmarks: traces of one agent span, four LLM calls carrying about
 * 1 KB of prompt text each, and three tool calls, made by the real OpenTelemetry SDK. Every call
 * makes fresh trace and span ids, so repeated batches are distinct rows downstream.
 */

const SENTENCE = 'You are a support agent for an online shop. Answer politely and cite the order number. '
/** About 1 KB: a short system prompt. Prompts with history run to several KB (`promptBytes`). */
const PROMPT_BYTES = SENTENCE.length * 12
const SPANS_PER_TRACE = 8

const WORDS = (
  'order refund delivery parcel tracking number address invoice account password payment card charge ' +
  'yesterday tomorrow week late missing damaged broken wrong size colour return label store credit ' +
  'policy days receipt email phone customer agent please thanks sorry help check update cancel ' +
  'ship shipped arrive arrived warehouse courier weekend monday friday price discount code coupon ' +
  'the a my your it is was not can could would will when where why how what which and but because ' +
  'i you we they this that there here still already again only just also very'
).split(' ')

/** Conversations made so far in this process: each trace's turns differ from every other's, and from run to run alike. */
let conversations = 0

/** Text of about `chars` characters, different per seed, worded like a support conversation. */
function chatter(seed: number, chars: number): string {
  let state = seed >>> 0 || 1
  const words: string[] = []
  let length = 0
  while (length < chars) {
    // xorshift32: the same seed gives the same text, so runs compare.
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    const word = WORDS[(state >>> 0) % WORDS.length]!
    words.push(word)
    length += word.length + 1
  }
  return words.join(' ')
}

export interface GenAiSpanOptions {
  /**
   * Conversations instead of one repeated prompt: the system prompt is the same in every trace (as
   * an agent version's is), each trace's user and assistant turns are its own, and each model call's
   * input holds the turns before it. What storage benchmarks compress; the default, one repeated
   * text, compresses far better than real traffic.
   */
  varied?: boolean
  /**
   * A system prompt of `promptBytes` of its own in every trace (agents that put the customer's record
   * or retrieved documents in it): no cache keyed by the prompt helps, as on such traffic.
   */
  promptPerTrace?: boolean
}

export function genAiSpans(count = 512, promptBytes = PROMPT_BYTES, options: GenAiSpanOptions = {}): ReadableSpan[] {
  const prompt = SENTENCE.repeat(Math.max(1, Math.round(promptBytes / SENTENCE.length)))
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': 'support-agent',
      'service.version': '2.3.1',
      'deployment.environment.name': 'production',
    }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('@sieve/sdk', '0.1.0')
  let history: { role: string; parts: { type: string; content: string }[] }[] = []
  let conversation = 0
  let tracePrompt = prompt
  for (let t = 0; t * SPANS_PER_TRACE < count; t++) {
    const root = tracer.startSpan('invoke_agent support', {
      kind: SpanKind.SERVER,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support',
        'gen_ai.conversation.id': `conv-${t % 97}`,
        'user.id': `user-${t % 1013}`,
        'sieve.prompt.version': 'support-v7',
      },
    })
    const parent = trace.setSpan(context.active(), root)
    conversation = ++conversations
    tracePrompt = options.promptPerTrace ? chatter(Math.imul(conversation, 40503) + 17, promptBytes) : prompt
    history = [{ role: 'system', parts: [{ type: 'text', content: tracePrompt }] }]
    for (let i = 1; i < SPANS_PER_TRACE && t * SPANS_PER_TRACE + i < count; i++) {
      const llm = i % 2 === 1
      const span = llm
        ? tracer.startSpan(
            'chat gpt-4o-mini',
            {
              kind: SpanKind.CLIENT,
              attributes: {
                'gen_ai.operation.name': 'chat',
                'gen_ai.provider.name': 'openai',
                'gen_ai.request.model': 'gpt-4o-mini',
                'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
                'gen_ai.request.temperature': 0.2,
                'gen_ai.usage.input_tokens': 250 + i,
                'gen_ai.usage.output_tokens': 80 + (t % 50),
                'gen_ai.response.finish_reasons': ['stop'],
                'gen_ai.response.id': `chatcmpl-${t}-${i}`,
                ...messages(t, i),
              },
            },
            parent,
          )
        : tracer.startSpan(
            'execute_tool lookup_order',
            {
              kind: SpanKind.INTERNAL,
              attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': `call-${t}-${i}` },
            },
            parent,
          )
      if (llm) span.addEvent('gen_ai.content.completion', { 'gen_ai.response.finish_reason': 'stop' })
      span.setStatus({ code: SpanStatusCode.OK })
      span.end()
    }
    root.end()
  }
  const spans = exporter.getFinishedSpans()

  function messages(t: number, i: number): Record<string, string> {
    if (!options.varied) {
      return {
        'gen_ai.input.messages': JSON.stringify([{ role: 'system', parts: [{ type: 'text', content: tracePrompt }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: `Order ${t} ships tomorrow.` }] }]),
      }
    }
    const seed = Math.imul(conversation, 2654435761) + i * 7919
    history.push({ role: 'user', parts: [{ type: 'text', content: chatter(seed, 160) }] })
    const input = JSON.stringify(history)
    const answer = { role: 'assistant', parts: [{ type: 'text', content: chatter(seed + 1, 240) }] }
    history.push(answer)
    return { 'gen_ai.input.messages': input, 'gen_ai.output.messages': JSON.stringify([answer]) }
  }
  void provider.shutdown()
  return spans
}

export const protobufBatch = (count = 512, promptBytes = PROMPT_BYTES, options: GenAiSpanOptions = {}): Buffer =>
  Buffer.from(ProtobufTraceSerializer.serializeRequest(genAiSpans(count, promptBytes, options))!)
export const jsonBatch = (count = 512): Buffer => Buffer.from(JsonTraceSerializer.serializeRequest(genAiSpans(count))!)
