import type { Convention } from './convention.js'

/**
 * What OpenLLMetry (Traceloop's instrumentations) writes beyond the GenAI names it shares: the
 * indexed `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` messages are read with the GenAI
 * conventions' deprecated forms; here `llm.request.type` (chat, completion, embedding),
 * `traceloop.span.kind` (workflow, task, agent, tool), `traceloop.entity.name` and the entity's
 * `traceloop.entity.input` / `.output` for tools.
 */
const REQUEST_TYPE: Record<string, string> = { chat: 'chat', completion: 'text_completion', embedding: 'embeddings' }
const SPAN_KIND: Record<string, string> = { tool: 'execute_tool', agent: 'invoke_agent' }

/** `traceloop.entity.input` holds `{"args": [...], "kwargs": {...}}`; a tool's arguments are the kwargs. */
function entityArguments(value: unknown): unknown {
  if (typeof value !== 'string') return value
  try {
    const parsed = JSON.parse(value) as { kwargs?: unknown; args?: unknown[] }
    if (parsed && typeof parsed === 'object' && parsed.kwargs && Object.keys(parsed.kwargs).length) return JSON.stringify(parsed.kwargs)
    if (parsed && Array.isArray(parsed.args) && parsed.args.length === 1) return JSON.stringify(parsed.args[0])
  } catch {
    // Not JSON: the arguments as written.
  }
  return value
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
    sessionId: ['traceloop.association.properties.session_id', 'traceloop.association.properties.sessionId'],
    userId: ['traceloop.association.properties.user_id', 'traceloop.association.properties.userId'],
  },
  toolCall(span) {
    const a = span.attributes
    if (a['traceloop.span.kind'] !== 'tool') return undefined
    return { name: String(a['traceloop.entity.name'] ?? ''), callId: undefined, arguments: entityArguments(a['traceloop.entity.input']) as string | undefined, result: a['traceloop.entity.output'] }
  },
}
