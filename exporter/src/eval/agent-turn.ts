import type { Trace } from '@sieve/core'
import { traceView } from '@sieve/scorer'
import { runAgent, type AgentRun, type AgentTurn } from './run-agent.js'
import { replayTrace } from './score-replay.js'
import type { SpanReceiver } from './span-receiver.js'

export interface TurnOutcome {
  run: AgentRun
  /** The trace the agent sent for this turn; none when it sent nothing. */
  trace?: Trace
  /** The agent's answer, read from that trace (its final answer), '' without one. */
  answer: string
  /** Why the turn failed: a timeout or a non-zero exit with the last lines of stderr. */
  error?: string
}

/**
 * One agent call through the agent protocol and the spans it sent for it. The receiver is this
 * caller's alone while the call runs: what it took before the call belongs to no one.
 */
export async function callAgentTurn(agent: string, turn: AgentTurn, receiver: SpanReceiver, timeoutMs: number, cwd?: string): Promise<TurnOutcome> {
  receiver.take()
  const run = await runAgent(agent, turn, receiver.endpoint, timeoutMs, cwd)
  const trace = replayTrace(receiver.take())
  const answer = trace ? (traceView(trace).finalAnswer?.text ?? '') : ''
  const error = run.timedOut ? `timed out after ${timeoutMs} ms` : run.exitCode !== 0 ? `exit code ${run.exitCode}: ${run.stderr.split('\n').slice(-3).join(' ')}` : undefined
  return { run, answer, ...(trace ? { trace } : {}), ...(error ? { error } : {}) }
}

/** The agent never ran (command not found, spawn failed): a setup problem, not a result. */
export const agentCannotStart = (run: AgentRun): boolean => (run.exitCode === 127 || run.exitCode === null) && !run.timedOut
