import type { Span, Trace } from '@sieve/core'
import { blankSpan, dimensionOf, verdict, type ModelRequest, type Step } from '@sieve/testkit'

/** The generic rubric's dimensions by the name a judge prompt gives them, and the level the scripted judge gives each. */
export const JUDGE_LEVELS: Record<string, number> = { 'Goal completion': 4, Groundedness: 4, 'Safety and scope': 4, Communication: 3 }

/** A judge that gives every trace the levels above, citing its first user turn. */
export const scriptedJudge = (r: ModelRequest): Step => verdict(r, JUDGE_LEVELS[dimensionOf(r)] ?? 2)

/**
 * Labels that agree with the judge on every dimension but groundedness, where a person gives the
 * lowest level to what it rated highest.
 */
export const DISAGREEING_LABELS = { goal_completion: 4, groundedness: 1, safety_scope: 4, communication: 3 }

export const traceIdOf = (project: string, n: number) => `${project === 'alpha' ? 'a' : 'b'}${n.toString(16).padStart(31, '0')}`

/**
 * One support turn of a project, as an agent span holding the user's question and the answer
 * (content captured), started `minutesAgo` minutes ago: what the judge reads and the review page shows.
 */
export function supportTrace(projectId: string, n: number, minutesAgo = 5): Trace {
  const traceId = traceIdOf(projectId, n)
  const start = BigInt(Date.now() - minutesAgo * 60_000 + n * 1000) * 1_000_000n
  const said = (role: string, content: string) => JSON.stringify([{ role, parts: [{ type: 'text', content }] }])
  const span: Span = blankSpan({
    projectId,
    traceId,
    spanId: `${n.toString(16).padStart(15, '0')}1`,
    name: 'invoke_agent support-agent',
    kind: 'SERVER',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 40_000_000n),
    serviceName: 'support-agent',
    resource: { 'service.name': 'support-agent' },
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support-agent',
      'gen_ai.input.messages': said('user', `Where is my order A-${1000 + n}? It should have arrived.`),
      'gen_ai.output.messages': said('assistant', `Order A-${1000 + n} shipped yesterday and arrives tomorrow.`),
    },
  })
  return { projectId, traceId, spans: [span], complete: true }
}
