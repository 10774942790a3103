import { z } from 'zod'

/*
 * The agent protocol: how `sieve eval` and `sieve simulate` call the agent under test, once per
 * user turn. Two forms carry the same turn:
 *   command  the turn input as JSON on stdin (also in SIEVE_EVAL_INPUT), the call's context in
 *            SIEVE_EVAL_* (and SIEVE_SIMULATION); the agent sends its trace to SIEVE_ENDPOINT and
 *            exits, its answer read from that trace.
 *   HTTP     the turn input plus `sieve` (the call's context) POSTed as JSON, with a W3C
 *            `traceparent` the agent's spans continue; it answers `{"answer": "..."}` (or `{}`:
 *            the answer is read from the trace).
 * protocol/README.md ("The agent protocol") describes it; agents in other languages are checked
 * against these names by testkit/test/agent-protocol.test.ts.
 */

/** The environment a command agent is run with. */
export const AGENT_ENV = {
  /** Where the agent sends its trace (OTLP/HTTP); also set as `otelEndpoint`. */
  endpoint: 'SIEVE_ENDPOINT',
  otelEndpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  /** The turn input, the JSON also written to stdin. */
  input: 'SIEVE_EVAL_INPUT',
  exampleId: 'SIEVE_EVAL_EXAMPLE_ID',
  /** 1-based: which user turn this is, of `turns`. */
  turn: 'SIEVE_EVAL_TURN',
  turns: 'SIEVE_EVAL_TURNS',
  /** One per replay or simulated run: the agent's session id (`gen_ai.conversation.id`). */
  sessionId: 'SIEVE_EVAL_SESSION_ID',
  /** A fixed clock (ISO 8601), only with `--now`. */
  now: 'SIEVE_EVAL_NOW',
  /** Under `sieve simulate`: `<scenario>@<template>#<run>` (`simulationTag`). */
  simulation: 'SIEVE_SIMULATION',
} as const

/** One message of the conversation so far. */
export const agentMessageSchema = z.object({ role: z.enum(['user', 'assistant']), content: z.string() })
export type AgentMessage = z.infer<typeof agentMessageSchema>

/** The simulated run a turn belongs to (`simulation` in the input, SIEVE_SIMULATION in the environment). */
export const agentSimulationSchema = z.object({ scenario: z.string(), template: z.string(), run: z.number() })
export type AgentSimulation = z.infer<typeof agentSimulationSchema>

/**
 * What the agent reads for one turn (stdin, SIEVE_EVAL_INPUT, the HTTP body): every earlier turn,
 * user and assistant, then the user's newest turn, last. Under `sieve simulate` also `fixtures`
 * (the scenario's `facts.fixtures`, the agent's own shape) and `simulation`. An agent with fixtures
 * of a known shape extends the schema with its own `fixtures`.
 */
export const agentTurnInputSchema = z.object({
  messages: z.array(agentMessageSchema).min(1),
  fixtures: z.record(z.string(), z.unknown()).optional(),
  simulation: agentSimulationSchema.optional(),
})
export type AgentTurnInput = z.infer<typeof agentTurnInputSchema>

/** The call's context: SIEVE_EVAL_* for a command agent, the request's `sieve` field over HTTP. */
export const agentCallContextSchema = z.object({
  exampleId: z.string(),
  turn: z.number().int().positive(),
  turns: z.number().int().positive(),
  sessionId: z.string(),
  now: z.string().optional(),
})
export type AgentCallContext = z.infer<typeof agentCallContextSchema>

/** The body POSTed to an agent given as an http(s) URL. */
export const agentHttpRequestSchema = agentTurnInputSchema.extend({ sieve: agentCallContextSchema })
export type AgentHttpRequest = z.infer<typeof agentHttpRequestSchema>

/** An HTTP agent's 2xx answer (JSON); without `answer` the runner reads it from the trace. */
export const agentAnswerSchema = z.object({ answer: z.string().optional() })
export type AgentAnswer = z.infer<typeof agentAnswerSchema>

/** SIEVE_SIMULATION's value for a simulated run. */
export const simulationTag = (s: AgentSimulation): string => `${s.scenario}@${s.template}#${s.run}`

/** The W3C `traceparent` of an HTTP call: the agent's spans continue `traceId` under `parentSpanId`, sampled. */
export const traceparentOf = (traceId: string, parentSpanId: string): string => `00-${traceId}-${parentSpanId}-01`

/**
 * The environment variables that carry a command agent's turn: its input, its context, where its
 * trace goes, and under simulation its run.
 */
export function agentEnvironment(input: string, call: AgentCallContext, endpoint: string): Record<string, string> {
  return {
    [AGENT_ENV.endpoint]: endpoint,
    [AGENT_ENV.otelEndpoint]: endpoint,
    [AGENT_ENV.input]: input,
    [AGENT_ENV.exampleId]: call.exampleId,
    [AGENT_ENV.turn]: String(call.turn),
    [AGENT_ENV.turns]: String(call.turns),
    [AGENT_ENV.sessionId]: call.sessionId,
    ...(call.now ? { [AGENT_ENV.now]: call.now } : {}),
  }
}
