import { GEN_AI, OTHER, SIEVE_ATTR } from '@sieve/protocol'
import { ASSOCIATED_SESSION, conventionOf, CONVENTIONS, type FactKey } from './conventions/index.js'
import type { AttributeValue, Span } from './span.js'

/**
 * The GenAI facts Sieve filters and scores on, read from a span whatever generation of the
 * OpenTelemetry GenAI conventions produced it (current names first, then deprecated ones), then
 * from the schemes other instrumentations write (conventions/: OpenInference, the Vercel AI SDK,
 * OpenLLMetry). With conventions/ and content.ts, the one place that knows attribute names.
 */
export interface GenAiFields {
  operation: string
  system: string
  requestModel: string
  responseModel: string
  inputTokens: number
  outputTokens: number
  toolName: string
  agentName: string
  agentVersion: string
  promptVersion: string
  sessionId: string
  userId: string
  environment: string
}

/** Sieve's own attribute names (`@sieve/protocol`), for facts the GenAI conventions have no name for. */
export { SIEVE_ATTR }

/** GenAI attributes read whole by other parts (content.ts reads the messages), named here once. */
export const GENAI_ATTR = {
  toolDefinitions: GEN_AI.toolDefinitions,
  retrievalDocuments: 'gen_ai.retrieval.documents',
  outputType: GEN_AI.outputType,
} as const

/** The GenAI conventions' names for a fact, then each other scheme's (conventions/), in precedence order. */
function keysOf(fact: FactKey, own: readonly string[]): readonly string[] {
  return [...own, ...CONVENTIONS.flatMap((c) => c.keys[fact] ?? [])]
}

const KEYS = {
  operation: [GEN_AI.operationName],
  toolName: keysOf('toolName', [GEN_AI.toolName]),
  system: keysOf('system', [GEN_AI.providerName, 'gen_ai.system']),
  requestModel: keysOf('requestModel', [GEN_AI.requestModel]),
  responseModel: keysOf('responseModel', [GEN_AI.responseModel]),
  inputTokens: keysOf('inputTokens', [GEN_AI.usageInputTokens, 'gen_ai.usage.prompt_tokens']),
  outputTokens: keysOf('outputTokens', [GEN_AI.usageOutputTokens, 'gen_ai.usage.completion_tokens']),
  agentName: keysOf('agentName', [GEN_AI.agentName]),
  agentVersion: keysOf('agentVersion', [GEN_AI.agentVersion, SIEVE_ATTR.agentVersion, OTHER.serviceVersion]),
  promptVersion: keysOf('promptVersion', [SIEVE_ATTR.promptVersion]),
  // A session the user associated explicitly (OpenLLMetry) names it over a framework's thread id in gen_ai.conversation.id.
  sessionId: [...new Set(keysOf('sessionId', [...ASSOCIATED_SESSION, GEN_AI.conversationId, 'session.id']))],
  userId: keysOf('userId', [OTHER.userId, 'enduser.id']),
  environment: [OTHER.environment, 'deployment.environment'],
} as const

function first(span: Span, keys: readonly string[], where: 'span' | 'both' = 'both'): AttributeValue | undefined {
  for (const key of keys) {
    const v = span.attributes[key]
    if (v !== undefined && v !== null && v !== '') return v
  }
  if (where === 'both') {
    for (const key of keys) {
      const v = span.resource[key]
      if (v !== undefined && v !== null && v !== '') return v
    }
  }
  return undefined
}

const text = (v: AttributeValue | undefined): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v))
const count = (v: AttributeValue | undefined): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : NaN
  return Number.isFinite(n) && n >= 0 ? Math.trunc(n) : 0
}

/** The session a span names, and whether the user associated it explicitly (which names the trace's session over a thread id). */
export function sessionOf(span: Span): { id: string; associated: boolean } {
  const id = text(first(span, KEYS.sessionId))
  return { id, associated: id !== '' && ASSOCIATED_SESSION.some((k) => span.attributes[k] !== undefined || span.resource[k] !== undefined) }
}

/** The user a span names, without extracting every field (the judge's sampler asks it of every trace). */
export function userIdOf(span: Span): string {
  return text(first(span, KEYS.userId))
}

/** The tool a tool span ran. */
export function toolNameOf(span: Span): string {
  return text(first(span, KEYS.toolName, 'span'))
}

/**
 * The span's GenAI operation (`chat`, `execute_tool`, ...), without extracting every field:
 * `gen_ai.operation.name`, a tool name, then what another scheme the span carries says.
 */
export function operationOf(span: Span): string {
  return operationFrom(span, text(first(span, KEYS.operation, 'span')), toolNameOf(span))
}

function operationFrom(span: Span, declared: string, toolName: string): string {
  if (declared) return declared
  if (text(first(span, ['gen_ai.tool.name'], 'span'))) return 'execute_tool'
  return conventionOf(span)?.operation(span) || (toolName ? 'execute_tool' : '')
}

export function genAiFields(span: Span): GenAiFields {
  const toolName = toolNameOf(span)
  return {
    operation: operationFrom(span, text(first(span, KEYS.operation, 'span')), toolName),
    system: text(first(span, KEYS.system, 'span')),
    requestModel: text(first(span, KEYS.requestModel, 'span')),
    responseModel: text(first(span, KEYS.responseModel, 'span')),
    inputTokens: count(first(span, KEYS.inputTokens, 'span')),
    outputTokens: count(first(span, KEYS.outputTokens, 'span')),
    toolName,
    agentName: text(first(span, KEYS.agentName)) || (conventionOf(span)?.agentName?.(span) ?? ''),
    agentVersion: text(first(span, KEYS.agentVersion)),
    promptVersion: text(first(span, KEYS.promptVersion)),
    sessionId: text(first(span, KEYS.sessionId)),
    userId: userIdOf(span),
    environment: text(first(span, KEYS.environment)),
  }
}

/** Operations that are a model call; the trace rollup counts LLM calls with the same list. */
export const LLM_OPERATIONS: ReadonlySet<string> = new Set(['chat', 'generate_content', 'text_completion', 'embeddings'])

export function isLlmSpan(span: Span): boolean {
  return isLlmCall(genAiFields(span))
}

/** `isLlmSpan` for callers that already extracted the span's fields. */
export function isLlmCall(f: GenAiFields): boolean {
  return LLM_OPERATIONS.has(f.operation) || (!f.operation && (f.requestModel !== '' || f.system !== ''))
}

export function isToolSpan(span: Span): boolean {
  return operationOf(span) === 'execute_tool'
}
