import { conventionOf } from './conventions/index.js'
import { GENAI_ATTR, toolNameOf } from './genai.js'
import { parseJsonValue } from './json-value.js'
import type { AttributeValue, Attributes, Span } from './span.js'

/**
 * The conversation content of a span (prompts, answers, tool calls), read from whichever shape
 * the instrumentation used: the current `gen_ai.input.messages` / `gen_ai.output.messages` /
 * `gen_ai.system_instructions` attributes (or the `gen_ai.client.inference.operation.details`
 * event carrying them), the deprecated per-message events (`gen_ai.user.message`, `gen_ai.choice`,
 * ...), and the older `gen_ai.prompt` / `gen_ai.completion` attributes, including their
 * OpenLLMetry-style indexed form (`gen_ai.prompt.0.content`). Content is opt-in in the
 * conventions, so every function here returns empty results rather than failing when it is absent.
 */

export type MessagePart =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'other'; kind: string; value: unknown }

export interface ChatMessage {
  role: string
  parts: MessagePart[]
  finishReason: string
}

export interface SpanContent {
  systemInstructions: string
  input: ChatMessage[]
  output: ChatMessage[]
}

const DETAILS_EVENT = 'gen_ai.client.inference.operation.details'

export { parseJsonValue }

/** Any value as text: strings as they are, nothing as '', the rest as JSON. */
export const asText = (v: unknown): string => (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v))

function normalizePart(raw: unknown): MessagePart | undefined {
  if (typeof raw === 'string') return { type: 'text', content: raw }
  if (!raw || typeof raw !== 'object') return undefined
  const p = raw as Record<string, unknown>
  switch (p.type) {
    case 'text':
    case 'reasoning':
      if (p.type === 'reasoning') return { type: 'other', kind: 'reasoning', value: p.content }
      return { type: 'text', content: asText(p.content ?? p.text) }
    case 'tool_call':
      return { type: 'tool_call', id: asText(p.id), name: asText(p.name), arguments: parseJsonValue(p.arguments) }
    case 'tool_call_response':
      // The spec example writes `result`, the JSON schema `response`: accept both.
      return { type: 'tool_call_response', id: asText(p.id), response: parseJsonValue(p.response ?? p.result) }
    // The Vercel AI SDK's message parts (`ai.prompt.messages`).
    case 'tool-call':
      return { type: 'tool_call', id: asText(p.toolCallId), name: asText(p.toolName), arguments: parseJsonValue(p.input ?? p.args) }
    case 'tool-result': {
      const output = p.output as { type?: unknown; value?: unknown } | undefined
      const value = output && typeof output === 'object' && 'value' in output ? output.value : (p.output ?? p.result)
      return { type: 'tool_call_response', id: asText(p.toolCallId), response: parseJsonValue(value) }
    }
    default:
      return { type: 'other', kind: asText(p.type), value: p }
  }
}

/** One message in the current schema ({role, parts}) or the OpenAI chat shape ({role, content, tool_calls}). */
function normalizeMessage(raw: unknown, fallbackRole: string): ChatMessage | undefined {
  if (typeof raw === 'string') return { role: fallbackRole, parts: [{ type: 'text', content: raw }], finishReason: '' }
  if (!raw || typeof raw !== 'object') return undefined
  const m = raw as Record<string, unknown>
  const role = asText(m.role) || fallbackRole
  const finishReason = asText(m.finish_reason ?? m.finishReason)
  const parts: MessagePart[] = []
  if (Array.isArray(m.parts)) {
    for (const p of m.parts) {
      const part = normalizePart(p)
      if (part) parts.push(part)
    }
  } else {
    const content = parseJsonValue(m.content)
    if (Array.isArray(content)) {
      for (const c of content) {
        const part = normalizePart(c)
        if (part) parts.push(part)
      }
    } else if (content !== undefined && content !== null && content !== '') {
      parts.push(
        role === 'tool' ? { type: 'tool_call_response', id: asText(m.tool_call_id ?? m.id), response: content } : { type: 'text', content: asText(content) },
      )
    }
    const toolCalls = parseJsonValue(m.tool_calls)
    if (Array.isArray(toolCalls)) {
      for (const call of toolCalls as Record<string, unknown>[]) {
        const fn = (call.function ?? call) as Record<string, unknown>
        parts.push({ type: 'tool_call', id: asText(call.id), name: asText(fn.name), arguments: parseJsonValue(fn.arguments) })
      }
    }
  }
  return { role, parts, finishReason }
}

/** How attribute text becomes values; callers reading many spans of one trace may memoize it. */
export type ContentParser = (value: unknown, attribute: string) => unknown

const defaultParser: ContentParser = (value) => parseJsonValue(value)

/**
 * Raw message objects → their normalised form. A parser that hands out the same raw objects for
 * messages repeated across model calls (ContentReader) gets the same ChatMessage back for them.
 */
export type MessageMemo = Map<object, ChatMessage>

function messageList(value: unknown, fallbackRole: string, parse: ContentParser = defaultParser, attribute = '', memo?: MessageMemo): ChatMessage[] {
  const parsed = parse(value, attribute)
  if (parsed === undefined || parsed === null || parsed === '') return []
  const items = Array.isArray(parsed) ? parsed : [parsed]
  const out: ChatMessage[] = []
  for (const item of items) {
    const cacheable = memo !== undefined && item !== null && typeof item === 'object'
    let message = cacheable ? memo.get(item) : undefined
    if (!message) {
      message = normalizeMessage(item, fallbackRole)
      if (message && cacheable) memo.set(item, message)
    }
    if (message) out.push(message)
  }
  return out
}

/**
 * A memoizing parser returns one value for every copy of an agent's instructions: read it once.
 * Values the default parser makes are new each time and not worth remembering.
 */
const instructionsOf = new WeakMap<object, string>()

function instructionsText(value: unknown, parse: ContentParser = defaultParser): string {
  const parsed = parse(value, 'gen_ai.system_instructions')
  if (parsed === undefined || parsed === null) return ''
  if (typeof parsed !== 'object') return typeof parsed === 'string' ? parsed : instructionsFrom([parsed])
  if (parse === defaultParser) return instructionsFrom(Array.isArray(parsed) ? parsed : [parsed])
  let text = instructionsOf.get(parsed)
  if (text === undefined) {
    text = instructionsFrom(Array.isArray(parsed) ? parsed : [parsed])
    instructionsOf.set(parsed, text)
  }
  return text
}

function instructionsFrom(items: unknown[]): string {
  let text = ''
  for (const item of items) {
    const part = normalizePart(item)
    if (part?.type !== 'text' || !part.content) continue
    text = text ? `${text}\n${part.content}` : part.content
  }
  return text
}

/** `gen_ai.prompt.0.role`, `gen_ai.prompt.0.content`, ... into a message list. */
function indexedMessages(attributes: Attributes, prefix: string, fallbackRole: string): ChatMessage[] {
  const byIndex = new Map<number, Record<string, AttributeValue>>()
  const head = `${prefix}.`
  // for-in over own keys: most spans have no indexed messages, and Object.entries would copy every attribute to find that out.
  for (const key in attributes) {
    if (!key.startsWith(head) || !Object.hasOwn(attributes, key)) continue
    const value = attributes[key] as AttributeValue
    const rest = key.slice(head.length)
    const dot = rest.indexOf('.')
    if (dot <= 0) continue
    const index = Number(rest.slice(0, dot))
    if (!Number.isInteger(index)) continue
    const entry = byIndex.get(index) ?? {}
    entry[rest.slice(dot + 1)] = value
    byIndex.set(index, entry)
  }
  return [...byIndex.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, m]) => normalizeMessage(m, fallbackRole))
    .filter((m): m is ChatMessage => m !== undefined)
}

const DEPRECATED_EVENT_ROLES: Record<string, string> = {
  'gen_ai.system.message': 'system',
  'gen_ai.user.message': 'user',
  'gen_ai.assistant.message': 'assistant',
  'gen_ai.tool.message': 'tool',
}

function eventBody(attributes: Attributes): Record<string, unknown> {
  const body = parseJsonValue(attributes['gen_ai.event.content'] ?? attributes['event.body'])
  return body && typeof body === 'object' && !Array.isArray(body) ? { ...(body as Record<string, unknown>), ...attributes } : attributes
}

export function spanContent(span: Span, parse: ContentParser = defaultParser, memo?: MessageMemo): SpanContent {
  const a = span.attributes
  let systemInstructions = instructionsText(a['gen_ai.system_instructions'], parse)
  let input = messageList(a['gen_ai.input.messages'], 'user', parse, 'gen_ai.input.messages', memo)
  let output = messageList(a['gen_ai.output.messages'], 'assistant', parse, 'gen_ai.output.messages', memo)

  for (const event of span.events) {
    if (event.name === DETAILS_EVENT) {
      if (!systemInstructions) systemInstructions = instructionsText(event.attributes['gen_ai.system_instructions'])
      if (!input.length) input = messageList(event.attributes['gen_ai.input.messages'], 'user')
      if (!output.length) output = messageList(event.attributes['gen_ai.output.messages'], 'assistant')
    }
  }

  if (!input.length && !output.length) {
    const deprecatedInput: ChatMessage[] = []
    const deprecatedOutput: ChatMessage[] = []
    for (const event of span.events) {
      const role = DEPRECATED_EVENT_ROLES[event.name]
      const body = eventBody(event.attributes)
      if (role) {
        const message = normalizeMessage({ role, ...body }, role)
        if (message) deprecatedInput.push(message)
      } else if (event.name === 'gen_ai.choice') {
        const message = normalizeMessage(parseJsonValue(body.message) ?? body, 'assistant')
        if (message) deprecatedOutput.push({ ...message, finishReason: message.finishReason || asText(body.finish_reason) })
      }
    }
    input = deprecatedInput
    output = deprecatedOutput
  }

  if (!input.length) input = messageList(a['gen_ai.prompt'], 'user')
  if (!output.length) output = messageList(a['gen_ai.completion'], 'assistant')
  if (!input.length) input = indexedMessages(a, 'gen_ai.prompt', 'user')
  if (!output.length) output = indexedMessages(a, 'gen_ai.completion', 'assistant')
  if (!input.length && !output.length) {
    // Other schemes (OpenInference, the Vercel AI SDK): only when the GenAI conventions gave nothing.
    const said = conventionOf(span)?.messages?.(span, parse)
    if (said) {
      input = messageList(said.input, 'user', () => said.input, '', memo)
      output = messageList(said.output, 'assistant', () => said.output, '', memo)
    }
  }

  if (!systemInstructions) {
    const system = input.filter((m) => m.role === 'system')
    systemInstructions = system.map(messageText).join('\n')
  }
  return { systemInstructions, input: input.filter((m) => m.role !== 'system'), output }
}

/** The text parts of a message, joined. */
export function messageText(message: ChatMessage): string {
  let text = ''
  for (const part of message.parts) {
    if (part.type !== 'text' || !part.content) continue
    text = text ? `${text}\n${part.content}` : part.content
  }
  return text
}

/** `gen_ai.response.finish_reasons` plus the finish reasons of the output messages. */
export function finishReasons(span: Span, content: SpanContent = spanContent(span)): string[] {
  const declared = parseJsonValue(span.attributes['gen_ai.response.finish_reasons'])
  const reasons = Array.isArray(declared) ? declared.map(asText) : typeof declared === 'string' && declared ? [declared] : []
  for (const m of content.output) if (m.finishReason) reasons.push(m.finishReason)
  return [...new Set(reasons)]
}

export interface ToolInvocation {
  spanId: string
  name: string
  callId: string
  /** Parsed JSON when the arguments were JSON text; the raw value otherwise; undefined when not captured. */
  arguments: unknown
  /** The raw text of the arguments, to report arguments that do not parse. */
  rawArguments: string | undefined
  result: unknown
  /** The result's text as sent, when the result was sent as text. */
  rawResult: string | undefined
  error: string
  startTimeUnixNano: string
}

/**
 * A result written as JSON of the text the tool returned (the Vercel AI SDK's, both integrations:
 * `"\"{\\"status\\": ...}\""`): the text is the result, as a model's tool message would carry it.
 */
function unquoted(value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith('"')) return value
  const text = parseJsonValue(`[${value}]`)
  return Array.isArray(text) && typeof text[0] === 'string' ? text[0] : value
}

/** An `execute_tool` span as a tool invocation. */
export function toolInvocation(span: Span): ToolInvocation {
  const a = span.attributes
  // The span's scheme first: it unwraps envelopes, also those written under the GenAI names (see Convention.toolCall).
  const own = conventionOf(span)?.toolCall?.(span)
  const rawArgs = own?.arguments ?? a['gen_ai.tool.call.arguments']
  const rawResult = unquoted(own?.result ?? a['gen_ai.tool.call.result'])
  const error = span.status.code === 'ERROR' ? span.status.message || asText(a['error.type']) || 'error status' : asText(a['error.type']) || (own?.error ?? '')
  return {
    spanId: span.spanId,
    name: toolNameOf(span) || (own?.name ?? ''),
    callId: asText(own?.callId ?? a['gen_ai.tool.call.id']),
    arguments: parseJsonValue(rawArgs),
    rawArguments: rawArgs === undefined || rawArgs === null ? undefined : asText(rawArgs),
    result: parseJsonValue(rawResult),
    rawResult: typeof rawResult === 'string' ? rawResult : undefined,
    error,
    startTimeUnixNano: span.startTimeUnixNano,
  }
}

/** The raw tool definitions a span offered the model: `gen_ai.tool.definitions`, else its scheme's. */
export function offeredTools(span: Span, parse: ContentParser = defaultParser): unknown[] | undefined {
  const declared = parse(span.attributes[GENAI_ATTR.toolDefinitions], GENAI_ATTR.toolDefinitions)
  if (Array.isArray(declared)) return declared
  return conventionOf(span)?.toolDefinitions?.(span, parse)
}

/** Tool definitions offered to the model on this span: name → JSON schema of its parameters. */
export function toolDefinitions(span: Span, parse: ContentParser = defaultParser, offered = offeredTools(span, parse)): Map<string, unknown> {
  const defs = new Map<string, unknown>()
  if (!offered) return defs
  for (const raw of offered) {
    if (!raw || typeof raw !== 'object') continue
    const d = raw as Record<string, unknown>
    const fn = (d.function && typeof d.function === 'object' ? d.function : d) as Record<string, unknown>
    const name = asText(fn.name)
    if (name) defs.set(name, parseJsonValue(fn.parameters ?? fn.input_schema ?? fn.inputSchema))
  }
  return defs
}
