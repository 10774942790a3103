import { context, SpanKind, trace, type Attributes, type Context, type Span } from '@opentelemetry/api'
import { currentAgentScope } from './agent.js'
import { asText, scrub } from './content.js'
import { reportBug } from './log.js'
import type { RequestedToolCall } from './openai/adapter.js'
import { GEN_AI } from '@sieve/protocol'
import { runInSpan } from './span-run.js'
import { state } from './state.js'

export interface ToolOptions {
  description?: string
  /** `function` (default), `extension` or `datastore`, as the conventions list. */
  type?: string
}

function canonical(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json))
  } catch {
    return json
  }
}

/**
 * The model's pending request for this tool, so the span records its call id: the first one whose
 * arguments equal these, else the first one for this tool name.
 */
function claimToolCall(name: string, args: string): RequestedToolCall | undefined {
  const pending = currentAgentScope()?.pendingToolCalls
  if (!pending?.length) return undefined
  let index = pending.findIndex((c) => c.name === name && canonical(c.arguments) === args)
  if (index < 0) index = pending.findIndex((c) => c.name === name)
  return index < 0 ? undefined : pending.splice(index, 1)[0]
}

function startToolSpan(name: string, options: ToolOptions, args: unknown[]): { span: Span; ctx: Context } | undefined {
  try {
    const argsText = asText(args.length === 1 ? args[0] : args)
    const call = claimToolCall(name, argsText)
    const attributes: Attributes = {
      [GEN_AI.operationName]: 'execute_tool',
      [GEN_AI.toolName]: name,
      [GEN_AI.toolType]: options.type ?? 'function',
    }
    if (options.description) attributes[GEN_AI.toolDescription] = options.description
    if (call?.id) attributes[GEN_AI.toolCallId] = call.id
    if (state.policy.capture) attributes[GEN_AI.toolCallArguments] = scrub(state.policy, argsText, 'tool.arguments')
    const span = state.tracer.startSpan(`execute_tool ${name}`, { kind: SpanKind.INTERNAL, attributes })
    return { span, ctx: trace.setSpan(context.active(), span) }
  } catch (err) {
    reportBug('traceTool', err)
    return undefined
  }
}

function recordResult(span: Span, value: unknown): void {
  if (state.policy.capture && value !== undefined) span.setAttribute(GEN_AI.toolCallResult, scrub(state.policy, asText(value), 'tool.result'))
}

/**
 * Wraps a tool so every call runs in an `execute_tool` span with its arguments, result or error.
 * The wrapped function has the same signature and returns (or throws) exactly what `fn` does.
 */
export function traceTool<A extends unknown[], R>(name: string, fn: (...args: A) => R, options: ToolOptions = {}): (...args: A) => R {
  return function tracedTool(this: unknown, ...args: A): R {
    const started = startToolSpan(name, options, args)
    if (!started) return fn.apply(this, args)
    return runInSpan(started.span, started.ctx, fn, this, args, recordResult, undefined)
  }
}
