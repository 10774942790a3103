import type { Attributes } from '@opentelemetry/api'
import { currentTraceId, traceAgent } from '@sieve/sdk'
import type OpenAI from 'openai'
import { PROMPTS, type PromptVersion } from './policy.js'
import { toolDefinitions, tools, type ToolName } from './tools.js'

export interface TurnResult {
  traceId: string
  answer: string
  /** Tools the agent called, in order. */
  toolCalls: string[]
}

const MAX_STEPS = 8

export interface SupportTurnOptions {
  request: string
  promptVersion: PromptVersion
  model: string
  sessionId: string
  userId: string
  /** The conversation before this request (earlier user turns and the agent's answers). */
  history?: { role: 'user' | 'assistant'; content: string }[]
  /** More attributes of the agent span (e.g. `sieve.simulation.*`). */
  attributes?: Attributes
}

/**
 * One customer-support turn: the model may call the shop's tools until it answers. `client`
 * should be wrapped with wrapOpenAI; the turn runs in an `invoke_agent` span.
 */
export function supportTurn(client: OpenAI, options: SupportTurnOptions): Promise<TurnResult> {
  const { request, promptVersion, model } = options
  const attributes = {
    sessionId: options.sessionId,
    userId: options.userId,
    promptVersion,
    input: request,
    ...(options.attributes ? { attributes: options.attributes } : {}),
  }
  return traceAgent('support-agent', attributes, async () => {
    const traceId = currentTraceId() ?? ''
    const toolCalls: string[] = []
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: PROMPTS[promptVersion] },
      ...(options.history ?? []),
      { role: 'user', content: request },
    ]
    for (let step = 0; step < MAX_STEPS; step++) {
      const completion = await client.chat.completions.create({ model, messages, tools: toolDefinitions, temperature: 0 })
      const message = completion.choices[0]?.message
      if (!message) throw new Error('the model returned no choice')
      messages.push(message)
      const calls = (message.tool_calls ?? []).filter((c) => c.type === 'function')
      if (!calls.length) return { traceId, answer: message.content ?? '', toolCalls }
      for (const call of calls) {
        const name = call.function.name as ToolName
        toolCalls.push(name)
        const tool = tools[name] as ((args: unknown) => Promise<unknown>) | undefined
        const result = tool ? await tool(JSON.parse(call.function.arguments)) : { error: `unknown tool ${name}` }
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
      }
    }
    return { traceId, answer: 'Sorry, I could not finish this request.', toolCalls }
  })
}
