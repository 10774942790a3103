import type { Trace } from '@sieve/core'
import { AGENT_ENV, simulationTag, type AgentSimulation } from '@sieve/protocol'
import { callAgentTurn, type AgentTarget } from '../eval/agent-turn.js'
import type { SpanReceiver } from '../eval/span-receiver.js'
import type { Scenario } from './scenario.js'
import type { SimulatedUser } from './simulated-user.js'
import type { VisibleMessage } from './user-prompt.js'

/** Why a run's conversation ended. */
export const STOP_REASONS = ['max-turns', 'user-done', 'script-ended', 'handoff', 'agent-error', 'max-cost', 'simulator-error', 'aborted'] as const
export type StopReason = (typeof STOP_REASONS)[number]

/** Stops that leave a conversation unfinished: the run says nothing about the agent and is not counted. */
export const INCOMPLETE: ReadonlySet<StopReason> = new Set(['max-cost', 'simulator-error', 'aborted'])

/** The run being simulated, as the agent learns it (`simulation` in its input, SIEVE_SIMULATION). */
export type RunLabel = AgentSimulation

export interface Conversation {
  transcript: VisibleMessage[]
  /** Each agent call's trace, in order; the spans of turn n are in `turns[n - 1]`. */
  traces: Trace[]
  turns: { turn: number; traceId: string; spanIds: Set<string> }[]
  stop: { reason: StopReason; detail?: string }
  /** The agent crashed or timed out: the run is errored. */
  agentError?: string
  /** The agent could not be started at all (command not found). */
  cannotStart?: boolean
  /** What the simulated user threw, when it ended the run. */
  userError?: unknown
}

export interface ConverseOptions {
  target: AgentTarget
  scenario: Scenario
  label: RunLabel
  sessionId: string
  user: SimulatedUser
  receiver: SpanReceiver
  now?: string
  /** The cost ceiling is reached: no more simulator calls. */
  overBudget: () => boolean
  /** Another run found a setup problem: stop at the next turn. */
  aborted: () => boolean
}

/**
 * One run: the opening, then for each user turn one agent call through the agent protocol with the
 * conversation so far (the agent's own live answers in it), its answer read from the trace it sent,
 * then the simulated user's next turn, until a stop condition holds.
 */
export async function converse(o: ConverseOptions): Promise<Conversation> {
  const { scenario, label } = o
  const c: Conversation = { transcript: [], traces: [], turns: [], stop: { reason: 'max-turns' } }
  const handoff = scenario.stop.handoff.map((p) => p.toLowerCase())
  if (o.user.kind === 'llm' && o.overBudget()) return { ...c, stop: { reason: 'max-cost', detail: 'not started: the cost ceiling was reached' } }
  let said = scenario.opening
  for (let turn = 1; ; turn++) {
    c.transcript.push({ role: 'user', content: said })
    const call = await callAgentTurn(
      o.target,
      {
        exampleId: `${label.scenario}@${label.template}`,
        messages: [...c.transcript],
        turn,
        turns: scenario.stop.maxTurns,
        sessionId: o.sessionId,
        ...(o.now ? { now: o.now } : {}),
        input: { fixtures: scenario.facts.fixtures, simulation: label },
        env: { [AGENT_ENV.simulation]: simulationTag(label) },
      },
      o.receiver,
    )
    if (call.trace) {
      c.traces.push(call.trace)
      c.turns.push({ turn, traceId: call.trace.traceId, spanIds: new Set(call.trace.spans.map((s) => s.spanId)) })
    }
    c.transcript.push({ role: 'assistant', content: call.answer })
    if (call.error) {
      return {
        ...c,
        agentError: `turn ${turn}: ${call.error}`,
        ...(call.cannotStart ? { cannotStart: true } : {}),
        stop: { reason: 'agent-error', detail: call.error },
      }
    }
    const phrase = handoff.find((p) => call.answer.toLowerCase().includes(p))
    if (phrase) return { ...c, stop: { reason: 'handoff', detail: `the agent said "${phrase}"` } }
    if (turn >= scenario.stop.maxTurns) return { ...c, stop: { reason: 'max-turns', detail: `${turn} turn(s)` } }
    if (o.aborted()) return { ...c, stop: { reason: 'aborted' } }
    if (o.user.kind === 'llm' && o.overBudget()) return { ...c, stop: { reason: 'max-cost', detail: 'the cost ceiling was reached before the next user turn' } }
    try {
      const reply = await o.user.next(c.transcript, turn + 1)
      if ('end' in reply) return { ...c, stop: { reason: reply.end } }
      said = reply.say
    } catch (err) {
      return { ...c, userError: err, stop: { reason: 'simulator-error', detail: (err as Error).message } }
    }
  }
}
