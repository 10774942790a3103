import { z } from 'zod'
import { genAiFields, type AttributeValue, type Trace } from '@sieve/core'
import { traceView } from '@sieve/scoring'

/**
 * Targeted slices: traces worth a judge's time more than a random one. Each kind is a pure
 * predicate over what the scorer knows when the trace is handed over.
 */
const scalar = z.union([z.string(), z.number(), z.boolean()])

export const sliceMatchSchema = z.discriminatedUnion('kind', [
  /** Failed any deterministic check, or one of `checks` when given. */
  z.strictObject({ kind: z.literal('failed_check'), checks: z.array(z.string()).optional() }),
  /** A tool span ended in error. */
  z.strictObject({ kind: z.literal('tool_error') }),
  /** At least this many user turns, or this many tokens over all LLM calls. */
  z
    .strictObject({ kind: z.literal('long_conversation'), minTurns: z.number().int().positive().optional(), minTokens: z.number().int().positive().optional() })
    .refine((s) => s.minTurns !== undefined || s.minTokens !== undefined, 'long_conversation needs minTurns or minTokens'),
  /** One of the first `firstTraces` traces of its user. */
  z.strictObject({ kind: z.literal('new_user'), firstTraces: z.number().int().positive() }),
  /** The user gave feedback at or below `maxScore` (thumbs down is 0). */
  z.strictObject({ kind: z.literal('negative_feedback'), maxScore: z.number().default(0) }),
  /** A given agent / prompt version: judge the canary more than the fleet. */
  z
    .strictObject({ kind: z.literal('canary'), agentName: z.string().optional(), agentVersion: z.string().optional(), promptVersion: z.string().optional() })
    .refine((s) => s.agentVersion !== undefined || s.promptVersion !== undefined, 'canary needs agentVersion or promptVersion'),
  /** Any span (or its resource) carries every one of these attribute values. */
  z.strictObject({
    kind: z.literal('attributes'),
    equals: z.record(z.string(), scalar).refine((r) => Object.keys(r).length > 0, 'equals needs at least one attribute'),
  }),
])

export type SliceMatch = z.infer<typeof sliceMatchSchema>

/** What a slice may look at besides the trace itself. */
export interface SliceFacts {
  trace: Trace
  /** Deterministic check results of this trace. */
  checks: ReadonlyArray<{ name: string; passed: boolean }>
  userTurns: number
  tokens: number
  /** 0 for a user's first trace; undefined when the trace names no user. */
  userTraceIndex: number | undefined
  /** Lowest feedback score given on the trace so far, if any. */
  lowestFeedback: number | undefined
}

const same = (a: AttributeValue | undefined, b: string | number | boolean) => a !== undefined && (a === b || String(a) === String(b))

export function sliceMatches(match: SliceMatch, facts: SliceFacts): boolean {
  const spans = facts.trace.spans
  switch (match.kind) {
    case 'failed_check':
      return facts.checks.some((c) => !c.passed && (!match.checks || match.checks.includes(c.name)))
    case 'tool_error':
      // The scorer's cached trace view has read the tool calls already.
      return traceView(facts.trace).toolCalls.some((c) => c.error !== '')
    case 'long_conversation':
      return (match.minTurns !== undefined && facts.userTurns >= match.minTurns) || (match.minTokens !== undefined && facts.tokens >= match.minTokens)
    case 'new_user':
      return facts.userTraceIndex !== undefined && facts.userTraceIndex < match.firstTraces
    case 'negative_feedback':
      return facts.lowestFeedback !== undefined && facts.lowestFeedback <= match.maxScore
    case 'canary':
      return spans.some((s) => {
        const f = genAiFields(s)
        return (
          (match.agentName === undefined || f.agentName === match.agentName) &&
          (match.agentVersion === undefined || f.agentVersion === match.agentVersion) &&
          (match.promptVersion === undefined || f.promptVersion === match.promptVersion)
        )
      })
    case 'attributes':
      return spans.some((s) => Object.entries(match.equals).every(([k, v]) => same(s.attributes[k], v) || same(s.resource[k], v)))
  }
}
