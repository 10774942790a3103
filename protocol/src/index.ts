export { GEN_AI, OTHER, SIEVE_ATTR, SIMULATION_ATTR, SIMULATION_ENVIRONMENT } from './semconv.js'
export { type Feedback, type FeedbackInput, feedbackSchema } from './feedback.js'
export { traceIdSchema } from './ids.js'
export { listenOnSockets } from './listening-agent.js'
export {
  AGENT_ENV,
  type AgentAnswer,
  agentAnswerSchema,
  type AgentCallContext,
  agentCallContextSchema,
  agentEnvironment,
  type AgentHttpRequest,
  agentHttpRequestSchema,
  type AgentMessage,
  agentMessageSchema,
  type AgentSimulation,
  agentSimulationSchema,
  type AgentTurnInput,
  agentTurnInputSchema,
  simulationTag,
  traceparentOf,
} from './agent-protocol.js'
