import { context, createContextKey, SpanKind, trace, type Attributes, type Span } from '@opentelemetry/api'
import { scrub } from './content.js'
import { guard } from './log.js'
import type { RequestedToolCall } from './openai/adapter.js'
import { GEN_AI, OTHER, SIEVE_ATTR } from '@sieve/protocol'
import { runInSpan } from './span-run.js'
import { state } from './state.js'

export interface AgentAttributes {
  /** Conversation or session id (`gen_ai.conversation.id`). */
  sessionId?: string
  userId?: string
  agentId?: string
  description?: string
  /** Overrides init's agent and prompt versions for this invocation (e.g. an A/B test). */
  agentVersion?: string
  promptVersion?: string
  /** The user's request, recorded as the agent's input message when content is captured. */
  input?: string
  /** Any other span attributes. */
  attributes?: Attributes
}

/** What LLM and tool spans inside one agent invocation share. */
export interface AgentScope {
  conversationId?: string
  /** Tool calls the model asked for and no tool span has claimed yet. */
  pendingToolCalls: RequestedToolCall[]
}

const AGENT_SCOPE = createContextKey('sieve.agent.scope')
const MAX_PENDING_TOOL_CALLS = 64

export function currentAgentScope(): AgentScope | undefined {
  return context.active().getValue(AGENT_SCOPE) as AgentScope | undefined
}

export function rememberToolCalls(scope: AgentScope | undefined, calls: RequestedToolCall[]): void {
  if (!scope || !calls.length) return
  scope.pendingToolCalls.push(...calls)
  if (scope.pendingToolCalls.length > MAX_PENDING_TOOL_CALLS) scope.pendingToolCalls.splice(0, scope.pendingToolCalls.length - MAX_PENDING_TOOL_CALLS)
}

function agentAttributes(name: string, a: AgentAttributes): Attributes {
  const { config, policy } = state
  const attrs: Attributes = { ...a.attributes, [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.agentName]: name }
  const set = (key: string, value: string | undefined) => {
    if (value) attrs[key] = value
  }
  set(GEN_AI.agentId, a.agentId)
  set(GEN_AI.agentDescription, a.description)
  set(GEN_AI.agentVersion, a.agentVersion ?? config?.agentVersion)
  set(SIEVE_ATTR.promptVersion, a.promptVersion ?? config?.promptVersion)
  set(GEN_AI.conversationId, a.sessionId)
  set(OTHER.userId, a.userId)
  if (policy.capture && a.input !== undefined) {
    attrs[GEN_AI.inputMessages] = JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: scrub(policy, a.input, 'input') }] }])
  }
  return attrs
}

/**
 * Runs one agent invocation in an `invoke_agent` span; LLM and tool spans inside become its
 * children. Returns (or throws) exactly what `fn` does. A string result is recorded as the
 * agent's output message when content is captured.
 */
export function traceAgent<T>(name: string, attributes: AgentAttributes, fn: () => T): T
export function traceAgent<T>(name: string, fn: () => T): T
export function traceAgent<T>(name: string, attributesOrFn: AgentAttributes | (() => T), maybeFn?: () => T): T {
  const fn = (typeof attributesOrFn === 'function' ? attributesOrFn : maybeFn) as () => T
  const attributes = typeof attributesOrFn === 'function' ? {} : (attributesOrFn ?? {})
  const started = guard(
    'traceAgent',
    () => {
      const span = state.tracer.startSpan(`invoke_agent ${name}`, { kind: SpanKind.INTERNAL, attributes: agentAttributes(name, attributes) })
      const scope: AgentScope = { conversationId: attributes.sessionId, pendingToolCalls: [] }
      return { span, ctx: trace.setSpan(context.active(), span).setValue(AGENT_SCOPE, scope) }
    },
    undefined,
  )
  if (!started) return fn()
  return runInSpan(started.span, started.ctx, fn, undefined, [], recordOutput, undefined)
}

function recordOutput(span: Span, value: unknown): void {
  if (state.policy.capture && typeof value === 'string') {
    const parts = [{ type: 'text', content: scrub(state.policy, value, 'output') }]
    span.setAttribute(GEN_AI.outputMessages, JSON.stringify([{ role: 'assistant', parts, finish_reason: 'stop' }]))
  }
}

/** The trace id of the active span (hex), to attach feedback later; undefined outside any trace. */
export function currentTraceId(): string | undefined {
  const ctx = trace.getActiveSpan()?.spanContext()
  return ctx && trace.isSpanContextValid(ctx) ? ctx.traceId : undefined
}
