import type { ContentKind, Redact } from './config.js'

/**
 * Message content in the shape of the GenAI conventions (gen-ai-input-messages.json and
 * gen-ai-output-messages.json), with the host's redaction applied before anything is recorded.
 */

export type Part =
  | { type: 'text'; content: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_call_response'; id: string; response: unknown }
  | { type: 'reasoning'; content: string }
  | { type: 'uri'; modality: string; uri: string; mime_type?: string }
  | { type: string; [key: string]: unknown }

export interface Message {
  role: string
  parts: Part[]
  name?: string
}

export interface OutputMessage extends Message {
  finish_reason: string
}

export interface ContentPolicy {
  capture: boolean
  redact?: Redact
  maxLength: number
}

export const REDACTION_FAILED = '[redaction failed]'

/** The text to record: redacted by the host's hook, then cut to the maximum length. */
export function scrub(policy: ContentPolicy, value: string, kind: ContentKind): string {
  let out = value
  if (policy.redact) {
    try {
      const redacted = policy.redact(value, kind)
      out = typeof redacted === 'string' ? redacted : REDACTION_FAILED
    } catch {
      out = REDACTION_FAILED
    }
  }
  return out.length > policy.maxLength ? `${out.slice(0, policy.maxLength)}…[truncated ${out.length - policy.maxLength} chars]` : out
}

/** Any value as recorded text: strings as they are, the rest JSON-encoded (never throws). */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value
  if (value === undefined) return ''
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Scrubbed tool arguments, as an object when they are JSON (the conventions record them structured). */
export function scrubArguments(policy: ContentPolicy, raw: unknown): unknown {
  const text = scrub(policy, asText(raw), 'tool.arguments')
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

export const textPart = (policy: ContentPolicy, content: string, kind: ContentKind): Part => ({ type: 'text', content: scrub(policy, content, kind) })

/*
 * The message attributes are written as JSON text directly, byte for byte what JSON.stringify of
 * the conventions' objects writes, without building the objects first: on a wrapped LLM call that
 * conversion cost more than the span itself.
 */

/** JSON.stringify(textPart(policy, content, kind)). */
export const textPartJson = (policy: ContentPolicy, content: string, kind: ContentKind): string =>
  `{"type":"text","content":${JSON.stringify(scrub(policy, content, kind))}}`

/**
 * `convert(policy, item, arg)` for each element of a list, a hole written `null` as JSON.stringify
 * writes it. Not a closure per call: see runInSpan.
 */
export function eachJson<A>(list: unknown, convert: (policy: ContentPolicy, item: unknown, arg: A) => string, policy: ContentPolicy, arg: A): string[] {
  if (!Array.isArray(list)) throw new TypeError('expected a list')
  const out: string[] = []
  for (let i = 0; i < list.length; i++) out.push(i in list ? convert(policy, list[i], arg) : 'null')
  return out
}

/** JSON.stringify({ role, parts, finish_reason? }) from the parts' JSON; `name` is appended when given. */
export function messageJson(role: string, parts: string[], tail?: { name?: string; finishReason?: string }): string {
  let json = `{"role":${JSON.stringify(role)},"parts":[${parts.join(',')}]`
  if (tail?.name !== undefined) json += `,"name":${JSON.stringify(tail.name)}`
  if (tail?.finishReason !== undefined) json += `,"finish_reason":${JSON.stringify(tail.finishReason)}`
  return `${json}}`
}

/** Maps a provider finish reason to the conventions' enum (stop | length | content_filter | tool_call | error). */
export function conventionFinishReason(reason: string | null | undefined): string {
  switch (reason) {
    case 'tool_calls':
    case 'function_call':
    case 'tool_call':
      return 'tool_call'
    case 'length':
    case 'content_filter':
    case 'error':
      return reason
    default:
      return 'stop'
  }
}
