import type { Span } from '../span.js'
import type { Convention } from './convention.js'

/**
 * The Vercel AI SDK's telemetry attributes (`ai.*`): `experimental_telemetry` of AI SDK 3 to 6 and
 * the `LegacyOpenTelemetry` integration of @ai-sdk/otel 1.x (AI SDK 7; its `OpenTelemetry`
 * integration writes the GenAI conventions, read without this). Spans: `ai.generateText`,
 * `ai.streamText`, `ai.generateObject`, `ai.streamObject` (one call of the SDK, an agent loop: its
 * prompt and final answer) with `.doGenerate` / `.doStream` children (one model call:
 * `ai.prompt.messages`, `ai.response.text`, `ai.response.toolCalls`), and `ai.toolCall` (one tool
 * execution). `ai.telemetry.functionId` names the agent; `ai.telemetry.metadata.*` (AI SDK 3-6) or
 * `ai.settings.context.*` (AI SDK 7's runtimeContext) carries the session, user and versions when
 * the caller puts them there under the names below.
 */
const OPERATION_ID = 'ai.operationId'

function operationId(span: Span): string {
  const id = span.attributes[OPERATION_ID]
  return typeof id === 'string' ? id : span.name.startsWith('ai.') ? span.name.split(' ')[0]! : ''
}

const MODEL_CALL = /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/
const AGENT_CALL = /^ai\.(generateText|streamText|generateObject|streamObject)$/
const EMBED_CALL = /^ai\.embed(Many)?\.doEmbed$/

/** AI SDK 3-6 put the caller's `metadata` under `ai.telemetry.metadata.*`; AI SDK 7 its `runtimeContext` under `ai.settings.context.*`. */
const metadata = (names: string[]) => names.flatMap((n) => [`ai.telemetry.metadata.${n}`, `ai.settings.context.${n}`])

/** The answer a span gives: its text, and the tool calls it asked for (`[{toolCallId, toolName, input | args}]`). */
function answer(span: Span, parse: (value: unknown, attribute: string) => unknown): unknown[] {
  const a = span.attributes
  const parts: unknown[] = []
  const text = a['ai.response.text'] ?? a['ai.response.object']
  if (typeof text === 'string' && text !== '') parts.push({ type: 'text', text })
  const calls = parse(a['ai.response.toolCalls'], 'ai.response.toolCalls')
  if (Array.isArray(calls)) {
    for (const c of calls as Record<string, unknown>[])
      parts.push({ type: 'tool-call', toolCallId: c.toolCallId, toolName: c.toolName, input: c.input ?? c.args })
  }
  return parts.length ? [{ role: 'assistant', content: parts }] : []
}

export const vercelAi: Convention = {
  name: 'Vercel AI SDK telemetry (ai.*), AI SDK 3-7',
  contentSetting: 'the Vercel AI SDK: experimental_telemetry { isEnabled: true, recordInputs: true, recordOutputs: true }',
  marks: (span) => span.attributes[OPERATION_ID] !== undefined || span.name.startsWith('ai.'),
  operation(span) {
    const id = operationId(span)
    if (MODEL_CALL.test(id)) return 'chat'
    if (AGENT_CALL.test(id)) return 'invoke_agent'
    if (id === 'ai.toolCall') return 'execute_tool'
    if (EMBED_CALL.test(id)) return 'embeddings'
    return ''
  },
  keys: {
    system: ['ai.model.provider'],
    requestModel: ['ai.model.id'],
    responseModel: ['ai.response.model'],
    inputTokens: ['ai.usage.inputTokens', 'ai.usage.promptTokens'],
    outputTokens: ['ai.usage.outputTokens', 'ai.usage.completionTokens'],
    toolName: ['ai.toolCall.name'],
    agentName: ['ai.telemetry.functionId'],
    sessionId: metadata(['sessionId', 'session_id', 'conversationId', 'conversation_id']),
    userId: metadata(['userId', 'user_id']),
    agentVersion: metadata(['agentVersion', 'agent_version']),
    promptVersion: metadata(['promptVersion', 'prompt_version']),
  },
  messages(span, parse) {
    const a = span.attributes
    const id = operationId(span)
    if (MODEL_CALL.test(id)) {
      // The history the model was sent: read like a GenAI input, so a call that repeats the last one's is parsed for its new part.
      const input = parse(a['ai.prompt.messages'], 'gen_ai.input.messages')
      const output = answer(span, parse)
      return Array.isArray(input) || output.length ? { input: Array.isArray(input) ? input : [], output } : undefined
    }
    if (AGENT_CALL.test(id)) {
      const prompt = parse(a['ai.prompt'], 'ai.prompt') as { system?: unknown; prompt?: unknown; messages?: unknown } | undefined
      const input: unknown[] = []
      if (prompt && typeof prompt === 'object') {
        if (typeof prompt.system === 'string' && prompt.system) input.push({ role: 'system', content: prompt.system })
        if (Array.isArray(prompt.messages)) input.push(...prompt.messages)
        else if (typeof prompt.prompt === 'string') input.push({ role: 'user', content: prompt.prompt })
      }
      const output = answer(span, parse).map((m) => ({
        ...(m as object),
        content: (m as { content: { type: string }[] }).content.filter((p) => p.type === 'text'),
      }))
      const said = output.filter((m) => (m as { content: unknown[] }).content.length)
      return input.length || said.length ? { input, output: said } : undefined
    }
    return undefined
  },
  toolDefinitions(span, parse) {
    // `ai.prompt.tools`: an array attribute, each element one tool's definition as JSON text.
    const tools = span.attributes['ai.prompt.tools']
    if (!Array.isArray(tools)) return undefined
    return tools.flatMap((t) => {
      const d = parse(t, 'gen_ai.tool.definitions')
      return d && typeof d === 'object' ? [d] : []
    })
  },
  toolCall(span) {
    const a = span.attributes
    if (operationId(span) !== 'ai.toolCall') return undefined
    return {
      callId: a['ai.toolCall.id'],
      arguments: a['ai.toolCall.args'] ?? a['ai.toolCall.input'],
      result: a['ai.toolCall.result'] ?? a['ai.toolCall.output'],
    }
  },
}
