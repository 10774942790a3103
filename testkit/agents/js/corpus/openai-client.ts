import { context, metrics, trace, type Attributes } from '@opentelemetry/api'
import { setSession, setUser } from '@arizeai/openinference-core'
import { OpenAIInstrumentation } from '@arizeai/openinference-instrumentation-openai'
import { OpenAIInstrumentation as OpenTelemetryOpenAIInstrumentation } from '@opentelemetry/instrumentation-openai'
import OpenAI from 'openai'
import * as openaiModule from 'openai'
import { CorpusTelemetry } from './corpus-telemetry.js'

/*
 * The corpus's support agent on the JavaScript openai client, traced by OpenInference
 * (@arizeai/openinference-instrumentation-openai) or OpenTelemetry's own
 * (@opentelemetry/instrumentation-openai, message content on: its messages are log records), as the
 * Python openai_agent.py does: each turn a span of the app's own around the calls, resending the
 * whole messages list, running the model's tool calls until it answers in text.
 *
 *   openai-client.ts openinference|otel [scenario ...]
 *
 * A session's ids: OpenInference's context (setSession, setUser: session.id, user.id on its spans);
 * for OpenTelemetry's, the app's turn span carries gen_ai.conversation.id and user.id.
 */

const corpus = new CorpusTelemetry('js-openai')
const client = new OpenAI({ baseURL: corpus.baseURL, apiKey: 'corpus-key', maxRetries: 0 })
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam
type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } }

let openinference: OpenAIInstrumentation | undefined
let otel: OpenTelemetryOpenAIInstrumentation | undefined
if (corpus.instrumentation === 'openinference') {
  openinference = new OpenAIInstrumentation()
  openinference.manuallyInstrument(OpenAI)
} else if (corpus.instrumentation === 'otel') {
  otel = new OpenTelemetryOpenAIInstrumentation({ captureMessageContent: true })
  // Its token and duration histograms are made when a meter provider is set (a streamed call records
  // into them unguarded); an app's NodeSDK sets one, here the API's no-op one.
  otel.setMeterProvider(metrics.getMeterProvider())
  // Patched in place, as its module hook patches the openai module an app loads.
  for (const definition of otel.getModuleDefinitions()) definition.patch?.(openaiModule)
} else throw new Error(`unknown instrumentation ${corpus.instrumentation}`)

async function complete(messages: Message[], stream: boolean): Promise<{ role: 'assistant'; content: string | null; tool_calls?: ToolCall[] }> {
  const tools = corpus.toolDefinitions()
  if (!stream) {
    const message = (await client.chat.completions.create({ model: corpus.spec.model, messages, tools })).choices[0]!.message
    const calls = (message.tool_calls ?? []).flatMap((c) =>
      c.type === 'function' ? [{ id: c.id, type: 'function' as const, function: { name: c.function.name, arguments: c.function.arguments } }] : [],
    )
    return { role: 'assistant', content: message.content, ...(calls.length ? { tool_calls: calls } : {}) }
  }
  let text = ''
  const calls: ToolCall[] = []
  const chunks = await client.chat.completions.create({ model: corpus.spec.model, messages, tools, stream: true, stream_options: { include_usage: true } })
  for await (const chunk of chunks) {
    for (const choice of chunk.choices) {
      text += choice.delta.content ?? ''
      for (const c of choice.delta.tool_calls ?? []) {
        const call = (calls[c.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } })
        call.id = c.id ?? call.id
        call.function.name += c.function?.name ?? ''
        call.function.arguments += c.function?.arguments ?? ''
      }
    }
  }
  return { role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }
}

await corpus.eachScenario(async ({ scenario, tracerProvider, loggerProvider }) => {
  openinference?.setTracerProvider(tracerProvider)
  otel?.setTracerProvider(tracerProvider)
  otel?.setLoggerProvider(loggerProvider)
  const tracer = tracerProvider.getTracer('support-app')
  const session = scenario.session
  const attributes: Attributes = session && otel ? { 'gen_ai.conversation.id': session.id, 'user.id': session.userId } : {}
  const messages: Message[] = [{ role: 'system', content: corpus.spec.system }]
  for (const turn of scenario.turns) {
    messages.push({ role: 'user', content: turn.user })
    const ctx = session && openinference ? setUser(setSession(context.active(), { sessionId: session.id }), { userId: session.userId }) : context.active()
    await context.with(ctx, () =>
      tracer.startActiveSpan('support turn', { attributes }, async (span) => {
        try {
          for (let i = 0; i < 5; i++) {
            const answer = await complete(messages, scenario.stream)
            messages.push(answer)
            if (!answer.tool_calls) break
            for (const call of answer.tool_calls) {
              const { order_id } = JSON.parse(call.function.arguments) as { order_id: string }
              messages.push({ role: 'tool', tool_call_id: call.id, content: corpus.runTool(call.function.name, order_id) })
            }
          }
        } finally {
          span.end()
        }
      }),
    )
  }
})
if (otel) for (const definition of otel.getModuleDefinitions()) definition.unpatch?.(openaiModule)
trace.disable()
