import { init, shutdown, traceAgent, traceTool, wrapOpenAI } from '@sieve/sdk'
import OpenAI from 'openai'
import { CorpusTelemetry } from './corpus-telemetry.js'

/*
 * The corpus's support agent traced with Sieve's own SDK (@sieve/sdk: init, traceAgent with the
 * session and user ids, traceTool, wrapOpenAI, content captured), the openai client resending the
 * whole messages list each turn. The SDK sets up its own tracer provider, so each scenario is an
 * init with its service name and a shutdown.
 *
 *   sieve-sdk.ts sieve [scenario ...]
 */

const corpus = new CorpusTelemetry('js-sieve-sdk')
if (corpus.instrumentation !== 'sieve') throw new Error(`unknown instrumentation ${corpus.instrumentation}`)
type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam
const prefix = process.env.SERVICE_NAME ?? 'corpus-js-sieve-sdk-sieve'

for (const name of corpus.scenarioNames) {
  const scenario = corpus.scenario(name)
  const started = init({ endpoint: process.env.OTEL_EXPORTER_OTLP_ENDPOINT!, serviceName: `${prefix}-${name}`, captureContent: true })
  if (!started.ok) throw new Error(`@sieve/sdk init: ${JSON.stringify(started)}`)
  const openai = wrapOpenAI(new OpenAI({ baseURL: corpus.baseURL, apiKey: 'corpus-key', maxRetries: 0 }))
  const run = Object.fromEntries(
    corpus.spec.tools.map((t) => [
      t.name,
      traceTool(t.name, async ({ order_id }: { order_id: string }) => corpus.runTool(t.name, order_id), { description: t.description }),
    ]),
  )
  const tools = corpus.toolDefinitions()
  const session = scenario.session
  const messages: Message[] = [{ role: 'system', content: corpus.spec.system }]
  for (const turn of scenario.turns) {
    messages.push({ role: 'user', content: turn.user })
    await traceAgent('support', { ...(session ? { sessionId: session.id, userId: session.userId } : {}), input: turn.user }, async () => {
      for (let i = 0; i < 5; i++) {
        let text = ''
        const calls: { id: string; type: 'function'; function: { name: string; arguments: string } }[] = []
        if (scenario.stream) {
          const chunks = await openai.chat.completions.create({
            model: corpus.spec.model,
            messages,
            tools,
            stream: true,
            stream_options: { include_usage: true },
          })
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
        } else {
          const message = (await openai.chat.completions.create({ model: corpus.spec.model, messages, tools })).choices[0]!.message
          text = message.content ?? ''
          for (const c of message.tool_calls ?? []) if (c.type === 'function') calls.push({ id: c.id, type: 'function', function: { ...c.function } })
        }
        messages.push({ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) })
        if (!calls.length) return text
        for (const call of calls) {
          const { order_id } = JSON.parse(call.function.arguments) as { order_id: string }
          messages.push({ role: 'tool', tool_call_id: call.id, content: await run[call.function.name]!({ order_id }) })
        }
      }
      return ''
    })
  }
  await shutdown()
}
