/**
 * What the fake model answers. A script is either a queue of steps consumed one per request, or a
 * function of the request (for answers that depend on what the caller sent, e.g. an agent loop).
 */

export interface ScriptedToolCall {
  /** Defaults to `call_<n>`. */
  id?: string
  name: string
  /** An object is sent JSON-encoded; a string is sent as is (so it can be deliberately invalid). */
  arguments: string | Record<string, unknown>
}

export interface ReplyStep {
  type: 'reply'
  text?: string
  toolCalls?: ScriptedToolCall[]
  /** Chat Completions finish reason; defaults to `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter'
  /** Defaults to a deterministic estimate from the request and answer sizes. */
  usage?: { inputTokens: number; outputTokens: number }
  /** Defaults to the requested model. */
  model?: string
  /** Wait this long before answering (a slow model). */
  delayMs?: number
}

export interface ErrorStep {
  type: 'error'
  status: number
  /** Sent as the `retry-after` header (seconds), as OpenAI does on 429. */
  retryAfterSeconds?: number
  message?: string
  delayMs?: number
}

/** HTTP 200 whose body is not valid JSON (a broken proxy, a truncated answer). */
export interface MalformedStep {
  type: 'malformed'
  delayMs?: number
}

export type Step = ReplyStep | ErrorStep | MalformedStep

export type Api = 'chat.completions' | 'responses'

export interface ModelRequest {
  /** 0-based position among the requests this server received. */
  index: number
  api: Api
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  /** The parsed JSON body (undefined when it was not JSON). */
  body: any
  stream: boolean
}

export type Script = Step[] | ((request: ModelRequest) => Step | Promise<Step>)

/** Shorthands for the common steps. */
export const say = (text: string, extra: Omit<ReplyStep, 'type' | 'text'> = {}): ReplyStep => ({ type: 'reply', text, ...extra })
export const callTools = (toolCalls: ScriptedToolCall[], extra: Omit<ReplyStep, 'type' | 'toolCalls'> = {}): ReplyStep => ({
  type: 'reply',
  toolCalls,
  ...extra,
})
export const failWith = (status: number, extra: Omit<ErrorStep, 'type' | 'status'> = {}): ErrorStep => ({ type: 'error', status, ...extra })
export const malformed = (extra: Omit<MalformedStep, 'type'> = {}): MalformedStep => ({ type: 'malformed', ...extra })
