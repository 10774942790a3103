import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel'
import { trace } from '@opentelemetry/api'
import { generateText, jsonSchema, stepCountIs, streamText, tool, type ModelMessage } from 'ai'
import { CorpusTelemetry } from './corpus-telemetry.js'

/*
 * The corpus's support agent on the Vercel AI SDK (generateText / streamText with two tools and a
 * step limit, an OpenAI-compatible provider), traced by the SDK's own telemetry: its ai.* spans
 * (`legacy`, LegacyOpenTelemetry) or its GenAI-conventions integration (`otel`, OpenTelemetry from
 * @ai-sdk/otel).
 *
 *   ai-sdk.ts legacy|otel [scenario ...]
 *
 * A session resends the conversation: each turn's messages are the earlier turns' plus all their steps'
 * response messages (`responseMessages`: in AI SDK 7 `response.messages` holds the last step's only). Its ids are runtime context the telemetry is told to include (includeRuntimeContext), the
 * AI SDK 7 successor of telemetry metadata (the GenAI integration emits it only with `runtimeContext: true`).
 */

const corpus = new CorpusTelemetry('js-ai-sdk')
if (corpus.instrumentation !== 'legacy' && corpus.instrumentation !== 'otel') throw new Error(`unknown instrumentation ${corpus.instrumentation}`)
const provider = createOpenAICompatible({ name: 'openai', baseURL: corpus.baseURL, apiKey: 'corpus-key', includeUsage: true })
const tools = Object.fromEntries(
  corpus.spec.tools.map((t) => [
    t.name,
    tool({
      description: t.description,
      inputSchema: jsonSchema<{ order_id: string }>(t.parameters as never),
      execute: async ({ order_id }) => corpus.runTool(t.name, order_id),
    }),
  ]),
)

await corpus.eachScenario(async ({ scenario, tracerProvider }) => {
  const tracer = tracerProvider.getTracer('ai')
  const integration = corpus.instrumentation === 'legacy' ? new LegacyOpenTelemetry({ tracer }) : new OpenTelemetry({ tracer, runtimeContext: true })
  const session = scenario.session
  const runtimeContext = session ? { sessionId: session.id, userId: session.userId } : {}
  const telemetry = {
    isEnabled: true,
    functionId: 'support',
    integrations: [integration],
    ...(session ? { includeRuntimeContext: { sessionId: true, userId: true } } : {}),
  }
  const messages: ModelMessage[] = []
  for (const turn of scenario.turns) {
    messages.push({ role: 'user', content: turn.user })
    const options = {
      model: provider(corpus.spec.model),
      system: corpus.spec.system,
      messages,
      tools,
      stopWhen: stepCountIs(5),
      maxRetries: 0,
      telemetry,
      runtimeContext,
    }
    if (scenario.stream) {
      const result = streamText(options)
      for await (const _ of result.textStream);
      messages.push(...(await result.responseMessages))
    } else {
      messages.push(...(await generateText(options)).responseMessages)
    }
  }
})
trace.disable()
