import type { Attributes } from '@opentelemetry/api'
import { asText, type ContentPolicy } from '../content.js'

/** A tool call the model asked for; traceTool matches it to the tool's span to record the call id. */
export interface RequestedToolCall {
  id: string
  name: string
  arguments: string
}

/** What the wrapper learned from a response (plain or the end of a stream). */
export interface ResponseFacts {
  attributes: Attributes
  toolCalls: RequestedToolCall[]
}

/** Gathers a streamed answer chunk by chunk without holding on to the chunks. */
export interface StreamAccumulator {
  add(event: any): void
  finish(policy: ContentPolicy): ResponseFacts
}

/** How one OpenAI API method maps onto the GenAI conventions. */
export interface ApiAdapter {
  operation: string
  /** Adds the request's attributes to `into` and returns it. */
  requestAttributes(params: any, policy: ContentPolicy, into: Attributes): Attributes
  responseFacts(result: any, policy: ContentPolicy): ResponseFacts
  accumulator(): StreamAccumulator
}

/**
 * A new attributes object for a span, filled key by key. A dictionary (null-prototype) object:
 * objects grown key by key get maps that die with them, and V8 then discards, at each full GC,
 * the optimized code that saw those maps and compiles it again (on a wrapped call as much CPU as
 * the call itself in bench:sdk). OpenTelemetry copies the attributes into the span.
 */
export const newAttributes = (): Attributes => Object.create(null)

/** Sets `key` when the value is a usable attribute value. */
export function put(attrs: Attributes, key: string, value: unknown): void {
  if (typeof value === 'string' ? value !== '' : typeof value === 'number' ? Number.isFinite(value) : typeof value === 'boolean') {
    attrs[key] = value as string | number | boolean
  } else if (Array.isArray(value) && value.length && value.every((v) => typeof v === 'string')) {
    attrs[key] = value as string[]
  }
}

/** `gen_ai.tool.definitions`: the request's tool list as JSON (a memo computation, see once). */
export const toolsText = (_policy: ContentPolicy, tools: unknown): string => asText(tools)
