import { parseJsonValue } from '../json-value.js'
import type { Span } from '../span.js'
import { unflatten, type Convention, type SchemeToolCall } from './convention.js'

/**
 * OpenInference semantic conventions (Arize; @arizeai/openinference-semantic-conventions 2.x), as
 * the OpenInference instrumentations write them for OpenAI, LangChain/LangGraph, LlamaIndex, DSPy,
 * CrewAI, smolagents and the OpenAI Agents SDK: `openinference.span.kind`,
 * `llm.input_messages.N.message.*`, `llm.output_messages.N.message.*`, `llm.tools.N.tool.json_schema`,
 * `llm.model_name`, `llm.token_count.*`, `tool.name`, `input.value` / `output.value`, `session.id`,
 * `user.id`.
 *
 * What the frameworks put around those, read so that a trace says what the agent did and nothing else:
 * - CHAIN spans are the framework's own steps (LangGraph nodes, LlamaIndex workflow steps); their
 *   values are graph state or Python reprs of workflow events. Only a root CHAIN (the app's chain,
 *   called with the user's text) says something the conversation needs.
 * - LLM-kind spans of a framework's private helpers (LlamaIndex's `OpenAI._prepare_chat_with_tools`)
 *   call no model.
 * - Tool spans: LangChain's output is a ToolMessage (`{type: tool, data: {content, tool_call_id}}`),
 *   LlamaIndex's input `{"kwargs": {...}}` and output a ToolOutput (`{blocks, raw_output, is_error}`).
 * - The agent: LangChain writes it in the run's `metadata` (`lc_agent_name`); a LangGraph graph's
 *   root span is named after the graph.
 */
const KIND = 'openinference.span.kind'

const OPERATION: Record<string, string> = {
  LLM: 'chat',
  TOOL: 'execute_tool',
  AGENT: 'invoke_agent',
  RETRIEVER: 'retrieval',
  EMBEDDING: 'embeddings',
}

const kindOf = (span: Span): string => String(span.attributes[KIND] ?? '').toUpperCase()

/** `Class._helper`: a framework's private method, which calls no model itself. */
const isPrivateHelper = (span: Span): boolean => span.name.slice(span.name.lastIndexOf('.') + 1).startsWith('_')

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

/** `StopEvent(result=...)`, `AgentOutput(response=...)`: a Python object's repr, not anyone's words. */
const PYTHON_REPR = /^[A-Z][A-Za-z0-9_]*\(/

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
  return PYTHON_REPR.test(value) ? undefined : value
}

const asObject = (value: unknown): Record<string, unknown> | undefined =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined

/** A tool's input as the framework wrapped it: LlamaIndex's `{"kwargs": {...}}` (with an empty `args`) is the kwargs. */
function toolArguments(value: unknown): unknown {
  const parsed = asObject(parseJsonValue(value))
  const kwargs = asObject(parsed?.kwargs)
  if (!parsed || !kwargs) return value
  const others = Object.keys(parsed).filter((k) => k !== 'kwargs' && !(k === 'args' && Array.isArray(parsed.args) && parsed.args.length === 0))
  return others.length ? value : kwargs
}

/** A tool's output as the framework wrapped it: a LangChain ToolMessage, a LlamaIndex ToolOutput, or the value itself. */
function toolOutput(value: unknown): Pick<SchemeToolCall, 'result' | 'callId' | 'error'> {
  const parsed = asObject(parseJsonValue(value))
  const message = parsed?.type === 'tool' ? asObject(parsed.data) : undefined
  if (message) {
    const callId = typeof message.tool_call_id === 'string' ? message.tool_call_id : undefined
    return { result: message.content, ...(callId ? { callId } : {}), ...(message.status === 'error' ? { error: String(message.content ?? 'error') } : {}) }
  }
  if (parsed && Array.isArray(parsed.blocks) && 'raw_output' in parsed) {
    return { result: parsed.raw_output, ...(parsed.is_error === true ? { error: String(parsed.raw_output ?? 'error') } : {}) }
  }
  return { result: value }
}

/** `"lc_agent_name": "support"` in a LangChain run's metadata (JSON text). */
const LC_AGENT_NAME = /"lc_agent_name":\s*"((?:[^"\\]|\\.)*)"/

export const openInference: Convention = {
  name: 'OpenInference 2.x',
  contentSetting: 'OpenInference: leave OPENINFERENCE_HIDE_INPUTS and OPENINFERENCE_HIDE_OUTPUTS unset (TraceConfig hide_inputs / hide_outputs false)',
  marks: (span) => span.attributes[KIND] !== undefined,
  operation(span) {
    const kind = kindOf(span)
    // Named so that the fallback for spans without an operation (a model name means a model call) does not count it.
    if (kind === 'LLM' && isPrivateHelper(span)) return 'internal'
    return OPERATION[kind] ?? ''
  },
  keys: {
    system: ['llm.provider', 'llm.system'],
    requestModel: ['llm.model_name'],
    inputTokens: ['llm.token_count.prompt'],
    outputTokens: ['llm.token_count.completion'],
    toolName: ['tool.name'],
    agentName: ['agent.name', 'graph.node.name'],
  },
  agentName(span) {
    const metadata = span.attributes.metadata
    const named = typeof metadata === 'string' ? LC_AGENT_NAME.exec(metadata)?.[1] : undefined
    if (named) return JSON.parse(`"${named}"`) as string
    // A LangGraph graph run without an agent name: its root span bears the graph's name.
    return span.parentSpanId === '' && kindOf(span) === 'CHAIN' && span.scope.name.startsWith('openinference.instrumentation.langchain') ? span.name : ''
  },
  messages(span) {
    const a = span.attributes
    const kind = kindOf(span)
    if (kind === 'LLM') {
      const input = unflatten(a, 'llm.input_messages').map(chatMessage).filter(Boolean)
      const output = unflatten(a, 'llm.output_messages').map(chatMessage).filter(Boolean)
      return input.length || output.length ? { input, output } : undefined
    }
    if (kind === 'AGENT' || (kind === 'CHAIN' && span.parentSpanId === '')) {
      const input = textValue(span, 'input')
      const output = textValue(span, 'output')
      if (input === undefined && output === undefined) return undefined
      return {
        input: input === undefined ? [] : [{ role: 'user', content: input }],
        output: output === undefined ? [] : [{ role: 'assistant', content: output }],
      }
    }
    return undefined
  },
  toolCall(span) {
    const a = span.attributes
    if (kindOf(span) !== 'TOOL') return undefined
    const output = toolOutput(a['output.value'])
    const callId = a['tool_call.id'] ?? a['tool.id'] ?? output.callId
    return { ...output, ...(callId !== undefined ? { callId } : {}), arguments: toolArguments(a['input.value']) }
  },
  toolDefinitions(span, parse) {
    if (kindOf(span) !== 'LLM') return undefined
    const tools = unflatten(span.attributes, 'llm.tools') as { tool?: { json_schema?: unknown } }[]
    const offered = tools.flatMap((t) => {
      const schema = parse(t?.tool?.json_schema, 'gen_ai.tool.definitions')
      return schema && typeof schema === 'object' ? [schema] : []
    })
    return offered.length ? offered : undefined
  },
}
