import { genAiFields, isLlmSpan, isToolSpan, spanContent, toolInvocation, type ChatMessage, type MessagePart, type Trace } from '@sieve/core'
import { traceParser, traceView } from '../trace/view.js'

/**
 * The conversation a judge reads, rebuilt from a trace's spans: each turn keeps the id of the span
 * it came from, so a verdict can cite it and an engineer can open it.
 */
export interface Turn {
  /** 1-based position in the transcript; what the judge cites as "turn N". */
  index: number
  spanId: string
  role: 'system' | 'user' | 'assistant' | 'tool'
  /** Tool name for tool calls and results. */
  name?: string
  text: string
}

export interface Transcript {
  turns: Turn[]
  /** User turns: how long the conversation was, for the long-conversation slice. */
  userTurns: number
  tokens: number
}

const asText = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v))

function partText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
      return part.content
    case 'tool_call':
      return `call ${part.name}(${asText(part.arguments)})`
    case 'tool_call_response':
      return `result: ${asText(part.response)}`
    default:
      return ''
  }
}

const ROLES = new Set<string>(['system', 'user', 'assistant', 'tool'])

function turnOf(m: ChatMessage): { role: Turn['role']; text: string } | undefined {
  const text = m.parts.map(partText).filter(Boolean).join('\n')
  return ROLES.has(m.role) && text ? { role: m.role as Turn['role'], text } : undefined
}

/**
 * Each LLM call repeats the conversation so far in its input; a message already shown is not shown
 * again, so the transcript reads like the conversation the user had.
 */
export function buildTranscript(trace: Trace, maxCharsPerTurn = 4000): Transcript {
  const turns: Turn[] = []
  const seen = new Set<string>()
  let tokens = 0
  const push = (spanId: string, m: { role: Turn['role']; text: string; name?: string } | undefined) => {
    if (!m) return
    const key = `${m.role}\u0000${m.name ?? ''}\u0000${m.text}`
    if (seen.has(key)) return
    seen.add(key)
    const text = m.text.length > maxCharsPerTurn ? `${m.text.slice(0, maxCharsPerTurn)}… [${m.text.length - maxCharsPerTurn} more characters]` : m.text
    turns.push({ index: turns.length + 1, spanId, role: m.role, ...(m.name ? { name: m.name } : {}), text })
  }
  // The trace view's parser reads only what each model call appends to the conversation.
  const parse = traceParser()
  for (const span of traceView(trace).spans) {
    const f = genAiFields(span)
    tokens += f.inputTokens + f.outputTokens
    if (isToolSpan(span)) {
      const call = toolInvocation(span)
      const result = call.result === undefined ? '' : `\nresult: ${asText(call.result)}`
      const failed = call.error ? ` [error: ${call.error}]` : ''
      push(span.spanId, { role: 'tool', name: call.name, text: `call ${call.name}(${call.rawArguments ?? ''})${result}${failed}` })
      // The next model call's input repeats this result as a tool message: shown once, here.
      if (result) seen.add(`tool\u0000\u0000${result.slice(1)}`)
      continue
    }
    if (!isLlmSpan(span) && f.operation !== 'invoke_agent') continue
    const content = spanContent(span, parse)
    if (content.systemInstructions) push(span.spanId, { role: 'system', text: content.systemInstructions })
    for (const m of [...content.input, ...content.output]) push(span.spanId, turnOf(m))
  }
  return { turns, userTurns: turns.filter((t) => t.role === 'user').length, tokens }
}
