import { parseJsonValue } from '../json-value.js'
import type { Convention, SchemeToolCall } from './convention.js'

/**
 * What OpenLLMetry (Traceloop's instrumentations) writes beyond the GenAI names it shares: the
 * indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` messages are read with the GenAI
 * conventions' deprecated forms; here `llm.request.type` (chat, completion, embedding),
 * `traceloop.span.kind` (workflow, task, agent, tool), `traceloop.entity.name`, the entity's
 * `traceloop.entity.input` / `.output` for tools, and the association properties the user sets
 * (`traceloop.association.properties.session_id`, `.user_id`).
 *
 * Its LangChain instrumentation (0.5x-0.6x) writes a tool's LangChain callback record where the GenAI
 * conventions put arguments and results: `gen_ai.tool.call.arguments` is `{input_str, inputs,
 * kwargs: {tool_call_id}}` and `gen_ai.tool.call.result` `{output: <ToolMessage>}`; the arguments
 * are `inputs`, the call id `kwargs.tool_call_id`, the result the ToolMessage's content.
 */
const REQUEST_TYPE: Record<string, string> = { chat: 'chat', completion: 'text_completion', embedding: 'embeddings' }
const SPAN_KIND: Record<string, string> = { tool: 'execute_tool', agent: 'invoke_agent' }

/** The association properties a Traceloop user sets for the session: they name it over a framework's own thread id. */
export const ASSOCIATED_SESSION = ['traceloop.association.properties.session_id', 'traceloop.association.properties.sessionId'] as const

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

/** A tool's input as written: a LangChain callback record, `{"args": [...], "kwargs": {...}}`, or the arguments. */
function toolInput(value: unknown): Pick<SchemeToolCall, 'arguments' | 'callId'> {
  const parsed = asObject(parseJsonValue(value))
  if (!parsed) return { arguments: value }
  const kwargs = asObject(parsed.kwargs)
  if ('inputs' in parsed && 'input_str' in parsed) {
    const callId = kwargs?.tool_call_id
    return { arguments: parsed.inputs, ...(typeof callId === 'string' ? { callId } : {}) }
  }
  if (kwargs && Object.keys(kwargs).length) return { arguments: kwargs }
  if (Array.isArray(parsed.args) && parsed.args.length === 1) return { arguments: parsed.args[0] }
  return { arguments: value }
}

/** A tool's output as written: `{output: <LangChain ToolMessage>}` is the message's content. */
function toolOutput(value: unknown): Pick<SchemeToolCall, 'result' | 'callId' | 'error'> {
  const message = asObject(asObject(asObject(parseJsonValue(value))?.output)?.kwargs)
  if (message?.type !== 'tool') return { result: value }
  const callId = message.tool_call_id
  return {
    result: message.content,
    ...(typeof callId === 'string' ? { callId } : {}),
    ...(message.status === 'error' ? { error: String(message.content ?? 'error') } : {}),
  }
}

export const openLlmetry: Convention = {
  name: 'OpenLLMetry (Traceloop) 0.x',
  contentSetting: 'OpenLLMetry: TRACELOOP_TRACE_CONTENT=true',
  marks: (span) => span.attributes['llm.request.type'] !== undefined || span.attributes['traceloop.span.kind'] !== undefined,
  operation(span) {
    const kind = SPAN_KIND[String(span.attributes['traceloop.span.kind'] ?? '')]
    return kind ?? REQUEST_TYPE[String(span.attributes['llm.request.type'] ?? '')] ?? ''
  },
  keys: {
    inputTokens: ['llm.usage.prompt_tokens'],
    outputTokens: ['llm.usage.completion_tokens'],
    agentName: ['traceloop.entity.name'],
    sessionId: [...ASSOCIATED_SESSION],
    userId: ['traceloop.association.properties.user_id', 'traceloop.association.properties.userId'],
  },
  toolCall(span) {
    const a = span.attributes
    if (a['traceloop.span.kind'] !== 'tool') return undefined
    const input = toolInput(a['gen_ai.tool.call.arguments'] ?? a['traceloop.entity.input'])
    const output = toolOutput(a['gen_ai.tool.call.result'] ?? a['traceloop.entity.output'])
    const callId = a['gen_ai.tool.call.id'] ?? input.callId ?? output.callId
    return {
      name: String(a['gen_ai.tool.name'] ?? a['traceloop.entity.name'] ?? ''),
      ...output,
      ...input,
      ...(callId !== undefined && callId !== null ? { callId } : {}),
    }
  },
}
