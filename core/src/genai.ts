import type { AttributeValue, Span } from './span.js'

/**
 * The GenAI facts Sieve filters and scores on, read from a span whatever generation of the
 * OpenTelemetry GenAI conventions produced it (current names first, then deprecated ones).
 * The one place that knows attribute names; everything else calls these functions.
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

/** Sieve's own attribute names, for facts the GenAI conventions have no name for. */
export const SIEVE_ATTR = {
  promptVersion: 'sieve.prompt.version',
  agentVersion: 'sieve.agent.version',
  modelVersion: 'sieve.model.version',
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

/** The user a span names, without extracting every field (the judge's sampler asks it of every trace). */
export function userIdOf(span: Span): string {
  return text(first(span, ['user.id', 'enduser.id']))
}

/** The span's GenAI operation (`chat`, `execute_tool`, ...), without extracting every field. */
export function operationOf(span: Span): string {
  const operation = text(first(span, ['gen_ai.operation.name'], 'span'))
  return operation || (text(first(span, ['gen_ai.tool.name'], 'span')) ? 'execute_tool' : '')
}

export function genAiFields(span: Span): GenAiFields {
  let operation = text(first(span, ['gen_ai.operation.name'], 'span'))
  const toolName = text(first(span, ['gen_ai.tool.name'], 'span'))
  if (!operation && toolName) operation = 'execute_tool'
  return {
    operation,
    system: text(first(span, ['gen_ai.provider.name', 'gen_ai.system'], 'span')),
    requestModel: text(first(span, ['gen_ai.request.model'], 'span')),
    responseModel: text(first(span, ['gen_ai.response.model'], 'span')),
    inputTokens: count(first(span, ['gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens'], 'span')),
    outputTokens: count(first(span, ['gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens'], 'span')),
    toolName,
    agentName: text(first(span, ['gen_ai.agent.name'])),
    agentVersion: text(first(span, ['gen_ai.agent.version', SIEVE_ATTR.agentVersion, 'service.version'])),
    promptVersion: text(first(span, [SIEVE_ATTR.promptVersion])),
    sessionId: text(first(span, ['gen_ai.conversation.id', 'session.id'])),
    userId: userIdOf(span),
    environment: text(first(span, ['deployment.environment.name', 'deployment.environment'])),
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
