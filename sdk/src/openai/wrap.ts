import { context, SpanKind, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'
import { currentAgentScope, rememberToolCalls, type AgentScope } from '../agent.js'
import { guard, reportBug } from '../log.js'
import { GEN_AI, OTHER } from '@sieve/protocol'
import { endWithError, runInSpan } from '../span-run.js'
import { state } from '../state.js'
import { newAttributes, type ApiAdapter, type ResponseFacts } from './adapter.js'
import { chatCompletionsAdapter } from './chat-completions.js'
import { responsesAdapter } from './responses.js'
import { traceStream } from './stream.js'

export interface WrapOpenAIOptions {
  /** `gen_ai.provider.name`; `openai` unless the client talks to another provider's compatible API. */
  provider?: string
}

const WRAPPED = Symbol.for('sieve.sdk.wrapped')

/** HTTP attempts per LLM span, so retries done inside the client show up as a resend count. */
const attempts = new WeakMap<Span, number>()

function serverOf(baseURL: unknown): { address: string; port: number } | undefined {
  try {
    const url = new URL(String(baseURL))
    return { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }
  } catch {
    return undefined
  }
}

/**
 * The client's constant attributes, in a new object per call, to which the request's are added.
 * Not a spread copy of one shared object: V8 gives such a copy a map outside the transition tree,
 * so each attribute added to it took the slow path (2 µs per call).
 */
function baseAttributes(provider: string, server: { address: string; port: number } | undefined): () => Attributes {
  return () => {
    const attrs = newAttributes()
    attrs[GEN_AI.operationName] = 'chat'
    attrs[GEN_AI.providerName] = provider
    if (server) {
      attrs[OTHER.serverAddress] = server.address
      attrs[OTHER.serverPort] = server.port
    }
    return attrs
  }
}

function record(span: Span, scope: AgentScope | undefined, facts: ResponseFacts): void {
  span.setAttributes(facts.attributes)
  rememberToolCalls(scope, facts.toolCalls)
}

function instrument(resource: any, adapter: ApiAdapter, base: () => Attributes): void {
  const original = resource?.create
  if (typeof original !== 'function') return
  const recordResponse = (span: Span, value: unknown, scope: AgentScope | undefined) => record(span, scope, adapter.responseFacts(value, state.policy))
  resource.create = function create(this: unknown, params: any, ...rest: unknown[]) {
    let span: Span
    let scope: AgentScope | undefined
    let ctx: Context
    let startedAt: number
    try {
      scope = currentAgentScope()
      const attributes = adapter.requestAttributes(params, state.policy, base())
      if (scope?.conversationId && attributes[GEN_AI.conversationId] === undefined) attributes[GEN_AI.conversationId] = scope.conversationId
      const name = typeof params?.model === 'string' ? `${adapter.operation} ${params.model}` : adapter.operation
      span = state.tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes })
      attempts.set(span, 0)
      startedAt = performance.now()
      ctx = trace.setSpan(context.active(), span)
    } catch (err) {
      reportBug('wrapOpenAI', err)
      return original.call(this, params, ...rest)
    }
    const args = [params, ...rest]
    if (params?.stream !== true) return runInSpan(span, ctx, original, this, args, recordResponse, scope)
    // A stream's span ends when the caller finishes reading it, not when the request resolves.
    let result: any
    try {
      result = context.with(ctx, original, this, ...args)
    } catch (err) {
      endWithError(span, err)
      throw err
    }
    Promise.resolve(result).then(
      (stream) => {
        const traced = guard(
          'wrapOpenAI stream',
          () => traceStream(stream, adapter.accumulator(), span, startedAt, (facts) => record(span, scope, facts)),
          false,
        )
        if (!traced) span.end()
      },
      (err) => endWithError(span, err),
    )
    return result
  }
}

/** Counts the client's HTTP attempts for the active LLM span (the client retries 429/5xx itself). */
function instrumentFetch(client: any): void {
  const original = client.fetch
  if (typeof original !== 'function') return
  client.fetch = function fetch(this: unknown, ...args: unknown[]) {
    const span = trace.getActiveSpan()
    const n = span ? attempts.get(span) : undefined
    if (span && n !== undefined) {
      attempts.set(span, n + 1)
      if (n > 0) span.setAttribute(OTHER.httpResendCount, n)
    }
    const response = original.apply(this, args)
    if (span && n !== undefined) {
      Promise.resolve(response).then(
        (res: any) => typeof res?.status === 'number' && span.setAttribute(OTHER.httpStatusCode, res.status),
        () => undefined,
      )
    }
    return response
  }
}

/**
 * Instruments an OpenAI client (the `openai` package, v4 and later) in place and returns it:
 * `chat.completions.create` and `responses.create`, streaming included, become GenAI `chat`
 * spans. What the caller receives is unchanged; a failure inside the instrumentation never
 * reaches the caller.
 */
export function wrapOpenAI<T extends object>(client: T, options: WrapOpenAIOptions = {}): T {
  guard(
    'wrapOpenAI',
    () => {
      const c = client as any
      if (c[WRAPPED]) return
      const base = baseAttributes(options.provider ?? 'openai', serverOf(c.baseURL))
      instrument(c.chat?.completions, chatCompletionsAdapter, base)
      instrument(c.responses, responsesAdapter, base)
      instrumentFetch(c)
      Object.defineProperty(c, WRAPPED, { value: true })
    },
    undefined,
  )
  return client
}
