import type { Trace } from '@sieve/core'
import type { JudgeSection } from './config.js'
import type { Rubric } from './rubric.js'
import { traceView } from '@sieve/scoring'

/**
 * The rubric that judges a trace: by agent name, then service name, as the scorer picks a checks
 * profile, else the default. Shared by the online judge stage and the regression gate.
 */
export function rubricFor(choice: JudgeSection['rubrics'], rubrics: ReadonlyMap<string, Rubric>, trace: Trace): Rubric | undefined {
  const { byAgent, default: fallback } = choice
  const { agentName, serviceName } = traceView(trace)
  return rubrics.get((agentName && byAgent[agentName]) || (serviceName && byAgent[serviceName]) || fallback)
}
