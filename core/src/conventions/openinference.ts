import { parseJsonValue } from '../json-value.js'
import type { Span } from '../span.js'
import { unflatten, type Convention } from './convention.js'

/**
 * OpenInference semantic conventions (Arize; @arizeai/openinference-semantic-conventions 2.x), as
 * the OpenInference instrumentations write them for OpenAI, LangChain, LlamaIndex, DSPy, CrewAI,
 * smolagents and the OpenAI Agents SDK: `openinference.span.kind`, `llm.input_messages.N.message.*`,
 * `llm.output_messages.N.message.*`, `llm.model_name`, `llm.token_count.*`, `tool.name`,
 * `input.value` / `output.value`, `session.id`, `user.id`.
 */
const KIND = 'openinference.span.kind'

const OPERATION: Record<string, string> = {
  LLM: 'chat',
  TOOL: 'execute_tool',
  AGENT: 'invoke_agent',
  RETRIEVER: 'retrieval',
  EMBEDDING: 'embeddings',
}

/** `{message: {role, content, contents, tool_calls, tool_call_id}}` as the OpenAI chat shape. */
function chatMessage(item: unknown): unknown {
  const m = (item as { message?: Record<string, unknown> } | undefined)?.message
  if (!m || typeof m !== 'object') return undefined
  const contents = Array.isArray(m.contents)
    ? (m.contents as { message_content?: Record<string, unknown> }[]).flatMap((c) =>
        c?.message_content?.type === 'text' || c?.message_content?.text !== undefined ? [{ type: 'text', text: c.message_content!.text }] : [],
      )
    : undefined
  const toolCalls = Array.isArray(m.tool_calls)
    ? (m.tool_calls as { tool_call?: { id?: unknown; function?: { name?: unknown; arguments?: unknown } } }[]).map((c) => ({
        id: c?.tool_call?.id,
        function: { name: c?.tool_call?.function?.name, arguments: c?.tool_call?.function?.arguments },
      }))
    : undefined
  return {
    role: m.role,
    content: m.content ?? contents,
    ...(toolCalls ? { tool_calls: toolCalls } : {}),
    ...(m.tool_call_id !== undefined ? { tool_call_id: m.tool_call_id } : {}),
  }
}

const mime = (span: Span, key: string) => String(span.attributes[`${key}.mime_type`] ?? '')

/** `input.value` / `output.value` of an agent or chain: plain text is a user's or the agent's message. */
function textValue(span: Span, key: 'input' | 'output'): string | undefined {
  const value = span.attributes[`${key}.value`]
  if (typeof value !== 'string' || value === '') return undefined
  if (mime(span, key) === 'application/json') {
    const parsed = parseJsonValue(value)
    // The shapes agents use most: {"input": "..."}, {"messages": [...]} handled by the caller's model calls.
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const k of ['input', 'query', 'question', 'output', 'answer', 'result']) {
        const v = (parsed as Record<string, unknown>)[k]
        if (typeof v === 'string') return v
      }
    }
    return typeof parsed === 'string' ? parsed : undefined
  }
  return value
}

export const openInference: Convention = {
  name: 'OpenInference 2.x',
  contentSetting: 'OpenInference: leave OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS unset (TraceConfig hide_inputs / hide_outputs false)',
  marks: (span) => span.attributes[KIND] !== undefined,
  operation: (span) => OPERATION[String(span.attributes[KIND] ?? '').toUpperCase()] ?? '',
  keys: {
    system: ['llm.provider', 'llm.system'],
    requestModel: ['llm.model_name'],
    inputTokens: ['llm.token_count.prompt'],
    outputTokens: ['llm.token_count.completion'],
    toolName: ['tool.name'],
    agentName: ['agent.name', 'graph.node.name'],
  },
  messages(span) {
    const a = span.attributes
    const kind = String(a[KIND] ?? '').toUpperCase()
    if (kind === 'LLM') {
      const input = unflatten(a, 'llm.input_messages').map(chatMessage).filter(Boolean)
      const output = unflatten(a, 'llm.output_messages').map(chatMessage).filter(Boolean)
      return input.length || output.length ? { input, output } : undefined
    }
    if (kind === 'AGENT' || kind === 'CHAIN') {
      const input = textValue(span, 'input')
      const output = textValue(span, 'output')
      if (input === undefined && output === undefined) return undefined
      return { input: input === undefined ? [] : [{ role: 'user', content: input }], output: output === undefined ? [] : [{ role: 'assistant', content: output }] }
    }
    return undefined
  },
  toolCall(span) {
    const a = span.attributes
    if (String(a[KIND] ?? '').toUpperCase() !== 'TOOL') return undefined
    return { callId: a['tool_call.id'] ?? a['tool.id'], arguments: a['input.value'] ?? a['tool.parameters'], result: a['output.value'] }
  },
}
