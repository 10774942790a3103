import type { Span, Trace } from '@sieve/core'
import { traceView } from '@sieve/scoring'
import { callHttpAgent, isHttpAgent, newCallIds } from './http-agent.js'
import { runAgent, whyItFailed, type AgentTurn } from './run-agent.js'
import { replayTrace } from './score-replay.js'
import { startSpanReceiver, type SpanReceiver } from './span-receiver.js'

/** How the agent under test is reached, the same for every call of a gate or a simulation. */
export interface AgentTarget {
  /** A shell command, a .ts/.js module run with node, or the http(s) URL of an agent service. */
  agent: string
  /** How long one call may take. */
  timeoutMs: number
  /** Where a command agent runs. */
  cwd?: string
  /** How long to wait, after an HTTP agent answered, for the trace it started to arrive (default 10 s). */
  traceWaitMs?: number
  /** Where an HTTP agent sends its traces, on 127.0.0.1 (default 4319). */
  otlpPort?: number
}

/** An HTTP agent should flush its spans before it answers; this is how long late ones are waited for. */
export const DEFAULT_TRACE_WAIT_MS = 10_000

export interface TurnOutcome {
  /** The trace the agent sent for this turn; none when it sent nothing. */
  trace?: Trace
  /** The agent's answer: the HTTP response's, else its trace's final answer; '' without one. */
  answer: string
  /** Why the turn failed: a timeout, a non-zero exit with the last lines of stderr, an HTTP error status. */
  error?: string
  /** The agent never ran (command not found, nothing listening at the URL): a setup problem, not a result. */
  cannotStart?: string
}

const answered = (trace: Trace | undefined, answer: string | undefined): string => answer ?? (trace ? (traceView(trace).finalAnswer?.text ?? '') : '')

const outcome = (spans: Span[], answer: string | undefined, failure: Pick<TurnOutcome, 'error' | 'cannotStart'>): TurnOutcome => {
  const trace = replayTrace(spans)
  return { answer: answered(trace, answer), ...(trace ? { trace } : {}), ...failure }
}

/**
 * One agent call through the agent protocol and the spans it sent for it. A command agent's
 * receiver is this caller's alone while the call runs: what it took before the call belongs to no
 * one. An HTTP agent's spans are those of the trace its request started.
 */
export async function callAgentTurn(target: AgentTarget, turn: AgentTurn, receiver: SpanReceiver): Promise<TurnOutcome> {
  if (isHttpAgent(target.agent)) {
    const ids = newCallIds()
    receiver.expect(ids.traceId)
    const call = await callHttpAgent(target.agent, turn, ids, target.timeoutMs)
    const received = await receiver.awaitTrace(
      ids.traceId,
      ids.parentSpanId,
      call.error || call.unreachable ? 0 : (target.traceWaitMs ?? DEFAULT_TRACE_WAIT_MS),
    )
    // The request's own span is never exported: the agent's spans under it are the trace's roots,
    // as a command agent's are (a complete trace for the checks, and for the Sieve --send stores it in).
    const spans = received.map((span) => (span.parentSpanId === ids.parentSpanId ? { ...span, parentSpanId: '' } : span))
    return outcome(spans, call.answer, {
      ...(call.error ? { error: call.error } : {}),
      ...(call.unreachable ? { error: call.unreachable, cannotStart: call.unreachable } : {}),
    })
  }
  receiver.take()
  const run = await runAgent(target.agent, turn, receiver.endpoint, target.timeoutMs, target.cwd)
  const spans = receiver.take()
  const error = run.timedOut
    ? `timed out after ${target.timeoutMs} ms`
    : run.exitCode === null
      ? whyItFailed(run.stderr)
      : run.exitCode !== 0
        ? `exit code ${run.exitCode}: ${whyItFailed(run.stderr)}`
        : undefined
  // Spawning failed (no exit code), the shell found no such command (127) or could not execute it
  // (126), or it exited non-zero before sending a single span (a missing module, a crash at import):
  // the agent did not run. Whether that is a setup error is for the caller (its first call only).
  const cannotStart =
    !run.timedOut && (run.exitCode === null || run.exitCode === 126 || run.exitCode === 127 || (run.exitCode !== 0 && !spans.length)) ? error : undefined
  return outcome(spans, undefined, { ...(error ? { error } : {}), ...(cannotStart ? { cannotStart } : {}) })
}

/** Where an HTTP agent's traces are expected when no port is given: next to OTLP's 4318. */
export const DEFAULT_HTTP_AGENT_OTLP_PORT = 4319

/**
 * The span receivers `slots` calls in flight at once need: a command agent is told a receiver of
 * its call's own; an HTTP agent exports to the one endpoint it was started with (`otlpPort`), where
 * the calls share one receiver and are told apart by trace. `warnings` says when spans came under
 * traces no call started: an agent that does not continue `traceparent`, whose turns have no trace.
 */
export async function withReceivers<T>(
  target: AgentTarget,
  slots: number,
  setupError: (message: string) => Error,
  use: (receivers: SpanReceiver[]) => Promise<T>,
): Promise<{ value: T; warnings: string[] }> {
  const http = isHttpAgent(target.agent)
  if (http && !URL.canParse(target.agent)) throw setupError(`the agent '${target.agent}' is not a valid URL`)
  if (!http && target.otlpPort !== undefined)
    throw setupError('--otlp-port is for an agent given as an http(s) URL: a command agent is told where to send its traces')
  const opened: SpanReceiver[] = []
  try {
    if (http) {
      const port = target.otlpPort ?? DEFAULT_HTTP_AGENT_OTLP_PORT
      const shared = await startSpanReceiver({ port, keepUnexpected: false }).catch((err: Error) => {
        throw setupError(
          `the agent's traces: ${err.message}; choose a free port with --otlp-port and start the agent with SIEVE_ENDPOINT=http://127.0.0.1:<port>`,
        )
      })
      opened.push(shared)
    } else for (let i = 0; i < slots; i++) opened.push(await startSpanReceiver())
    const value = await use(Array.from({ length: slots }, (_, i) => opened[http ? 0 : i]!))
    const strays = http ? opened[0]!.strays() : { unknown: 0, late: 0 }
    const warnings = [
      ...(strays.unknown
        ? [
            `${strays.unknown} span(s) from the agent came under traces no call started, and were left out: does it run each turn under the request's traceparent? (replay/DESIGN.md, "Over HTTP")`,
          ]
        : []),
      ...(strays.late
        ? [
            `${strays.late} span(s) from the agent came after their turn was scored, and were left out: does it flush its spans before it answers? (replay/DESIGN.md, "Over HTTP")`,
          ]
        : []),
    ]
    return { value, warnings }
  } finally {
    await Promise.all(opened.map((r) => r.close()))
  }
}
