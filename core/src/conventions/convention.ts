import type { AttributeValue, Attributes, Span } from '../span.js'

/**
 * A naming scheme other than the OpenTelemetry GenAI conventions that instrumentations write GenAI
 * facts under. Each reader maps its scheme onto what Sieve reads from the GenAI conventions, so the
 * conversation model, the span facts, checks and judge see such spans as they see any other.
 * Precedence: the GenAI conventions (current, then deprecated names) first, then the readers in
 * the order of CONVENTIONS; a span carrying several schemes is read by the first that has the fact.
 */
export interface Convention {
  /** The scheme and the version of it the reader follows. */
  name: string
  /** The setting that makes its instrumentations send message content (opt-in everywhere), for people told none arrived. */
  contentSetting: string
  /** Whether the span carries this scheme (cheap: one or two attribute lookups). */
  marks(span: Span): boolean
  /** The GenAI operation the span is (`chat`, `execute_tool`, `invoke_agent`, ...), '' when it says none. */
  operation(span: Span): string
  /** Attribute names holding GenAI facts, each list read after the GenAI conventions' own. */
  keys: Partial<Record<FactKey, readonly string[]>>
  /**
   * The span's messages as items the GenAI content reader normalises (GenAI `{role, parts}`, or the
   * OpenAI chat shape), undefined when the span carries none in this scheme.
   */
  messages?(span: Span, parse: (value: unknown, attribute: string) => unknown): SchemeMessages | undefined
  /**
   * A tool span's call: id, arguments and result, unwrapped from the framework's envelopes (a
   * LangChain ToolMessage, a LlamaIndex ToolOutput, a callback record). Read before the GenAI names,
   * which fill what it leaves undefined: some instrumentations write envelopes under those names.
   */
  toolCall?(span: Span): SchemeToolCall | undefined
  /** The tools a model call was offered, as GenAI tool definitions (`{name, parameters}` or the OpenAI `{function: {...}}` shape). */
  toolDefinitions?(span: Span, parse: (value: unknown, attribute: string) => unknown): unknown[] | undefined
  /** The agent a span belongs to when the scheme says it other than under an attribute name (e.g. inside JSON metadata). */
  agentName?(span: Span): string
}

export interface SchemeToolCall {
  name?: string
  callId?: AttributeValue
  /** The arguments: JSON text or a value. */
  arguments?: unknown
  /** The result: JSON text or a value. */
  result?: unknown
  /** The framework says the call failed. */
  error?: string
}

export type FactKey =
  | 'system'
  | 'requestModel'
  | 'responseModel'
  | 'inputTokens'
  | 'outputTokens'
  | 'toolName'
  | 'agentName'
  | 'sessionId'
  | 'userId'
  | 'agentVersion'
  | 'promptVersion'

export interface SchemeMessages {
  system?: string
  input: unknown[]
  output: unknown[]
}

/**
 * Indexed flat attributes (`prefix.0.message.role`, `prefix.0.message.tool_calls.1.tool_call.id`)
 * as the nested list they flatten: numeric segments are list positions.
 */
export function unflatten(attributes: Attributes, prefix: string): unknown[] {
  const root: unknown[] = []
  const head = `${prefix}.`
  for (const key in attributes) {
    if (!key.startsWith(head) || !Object.hasOwn(attributes, key)) continue
    const path = key.slice(head.length).split('.')
    let node: Record<string, unknown> | unknown[] = root
    for (let i = 0; i < path.length; i++) {
      const segment = path[i]!
      const index = /^\d+$/.test(segment) ? Number(segment) : undefined
      const last = i === path.length - 1
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]!)
      const slot = index ?? segment
      // Keys such as __proto__ are data here, never the object's prototype.
      if (last) {
        Object.defineProperty(node, slot, { value: attributes[key], enumerable: true, writable: true, configurable: true })
        break
      }
      let child = (node as Record<string | number, unknown>)[slot]
      if (child === undefined || typeof child !== 'object' || child === null) {
        child = nextIsIndex ? [] : {}
        Object.defineProperty(node, slot, { value: child, enumerable: true, writable: true, configurable: true })
      }
      node = child as Record<string, unknown> | unknown[]
    }
  }
  return root.filter((item) => item !== undefined)
}
