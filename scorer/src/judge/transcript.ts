import { genAiFields, isLlmSpan, isToolSpan, type AttributeValue, type Span, type Trace } from '@sieve/core'

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

const byStart = (a: Span, b: Span) => {
  const d = BigInt(a.startTimeUnixNano) - BigInt(b.startTimeUnixNano)
  return d < 0n ? -1 : d > 0n ? 1 : a.spanId < b.spanId ? -1 : 1
}

/** Attribute values arrive either structured or as JSON text, depending on the exporter. */
function structured(value: AttributeValue | undefined): AttributeValue | undefined {
  if (typeof value !== 'string') return value
  const t = value.trim()
  if (!t.startsWith('[') && !t.startsWith('{')) return value
  try {
    return JSON.parse(t) as AttributeValue
  } catch {
    return value
  }
}

const asText = (v: AttributeValue | undefined): string =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v)

function partText(part: AttributeValue): string {
  if (part === null || typeof part !== 'object' || Array.isArray(part)) return asText(part)
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return asText(part.content)
    case 'tool_call':
      return `call ${asText(part.name)}(${asText(structured(part.arguments))})`
    case 'tool_call_response':
      return `result: ${asText(part.response ?? part.result)}`
    default:
      return asText(part.content ?? part)
  }
}

interface Message {
  role: Turn['role']
  text: string
  name?: string
}

const ROLES = new Set(['system', 'user', 'assistant', 'tool'])

function messages(value: AttributeValue | undefined): Message[] {
  const list = structured(value)
  if (!Array.isArray(list)) return []
  const out: Message[] = []
  for (const m of list) {
    if (m === null || typeof m !== 'object' || Array.isArray(m)) continue
    const role = asText(m.role)
    const parts = Array.isArray(m.parts) ? m.parts : m.content !== undefined ? [{ type: 'text', content: m.content }] : []
    const text = parts.map(partText).filter(Boolean).join('\n')
    if (ROLES.has(role) && text) out.push({ role: role as Turn['role'], text })
  }
  return out
}

/** Pre-1.37 instrumentations put content in events named gen_ai.<role>.message / gen_ai.choice. */
function eventMessages(span: Span): { input: Message[]; output: Message[] } {
  const input: Message[] = []
  const output: Message[] = []
  for (const e of span.events) {
    const m = /^gen_ai\.(system|user|assistant|tool)\.message$/.exec(e.name)
    const content = asText(structured(e.attributes.content ?? e.attributes['gen_ai.event.content']))
    if (m && content) input.push({ role: m[1] as Turn['role'], text: content })
    else if (e.name === 'gen_ai.choice') {
      const msg = structured(e.attributes.message)
      const text = msg && typeof msg === 'object' && !Array.isArray(msg) ? asText(msg.content) : content
      if (text) output.push({ role: 'assistant', text })
    }
  }
  return { input, output }
}

/**
 * Each LLM call repeats the conversation so far in its input; a message already shown is not shown
 * again, so the transcript reads like the conversation the user had.
 */
export function buildTranscript(trace: Trace, maxCharsPerTurn = 4000): Transcript {
  const turns: Turn[] = []
  const seen = new Set<string>()
  let tokens = 0
  const push = (spanId: string, m: Message) => {
    const key = `${m.role}\u0000${m.name ?? ''}\u0000${m.text}`
    if (seen.has(key)) return
    seen.add(key)
    const text = m.text.length > maxCharsPerTurn ? `${m.text.slice(0, maxCharsPerTurn)}… [${m.text.length - maxCharsPerTurn} more characters]` : m.text
    turns.push({ index: turns.length + 1, spanId, role: m.role, ...(m.name ? { name: m.name } : {}), text })
  }
  for (const span of [...trace.spans].sort(byStart)) {
    const f = genAiFields(span)
    tokens += f.inputTokens + f.outputTokens
    if (isToolSpan(span)) {
      const args = asText(structured(span.attributes['gen_ai.tool.call.arguments']))
      const result = asText(structured(span.attributes['gen_ai.tool.call.result']))
      const failed = span.status.code === 'ERROR' ? ` [error: ${span.status.message || asText(span.attributes['error.type']) || 'failed'}]` : ''
      push(span.spanId, { role: 'tool', name: f.toolName, text: `call ${f.toolName}(${args})${result ? `\nresult: ${result}` : ''}${failed}` })
      continue
    }
    if (!isLlmSpan(span) && f.operation !== 'invoke_agent') continue
    const system = structured(span.attributes['gen_ai.system_instructions'])
    const systemText = Array.isArray(system) ? system.map(partText).join('\n') : asText(system)
    if (systemText) push(span.spanId, { role: 'system', text: systemText })
    const events = eventMessages(span)
    for (const m of [...messages(span.attributes['gen_ai.input.messages']), ...events.input]) push(span.spanId, m)
    for (const m of [...messages(span.attributes['gen_ai.output.messages']), ...events.output]) push(span.spanId, m)
  }
  return { turns, userTurns: turns.filter((t) => t.role === 'user').length, tokens }
}
