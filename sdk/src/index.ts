export { init, shutdown, flush, exportStats, createSieveSpanProcessor, type InitResult } from './init.js'
export { traceAgent, currentTraceId, type AgentAttributes } from './agent.js'
export { traceTool, type ToolOptions } from './tool.js'
export { wrapOpenAI, type WrapOpenAIOptions } from './openai/wrap.js'
export { feedback, type FeedbackResult } from './feedback.js'
export { feedbackSchema, type FeedbackInput, type Feedback } from '@sieve/protocol'
export {
  AGENT_ENV,
  agentTurnInputSchema,
  agentMessageSchema,
  agentSimulationSchema,
  agentCallContextSchema,
  agentHttpRequestSchema,
  agentAnswerSchema,
  simulationTag,
  SIMULATION_ATTR,
  type AgentTurnInput,
  type AgentMessage,
  type AgentSimulation,
  type AgentCallContext,
  type AgentHttpRequest,
  type AgentAnswer,
} from '@sieve/protocol'
export { resolveConfig, sdkOptionsSchema, SdkConfigError, type SdkOptions, type SdkConfig, type Redact, type ContentKind } from './config.js'
export { SieveSpanProcessor, type ExportStats } from './export/sieve-span-processor.js'
export { SDK_VERSION } from './version.js'
