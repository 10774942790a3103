import { z } from 'zod'

/** Version of the golden example schema below; bump when a field changes meaning. */
export const DATASET_VERSION = 1

export const BUCKETS = ['typical', 'edge', 'known-failure'] as const

/** A turn of the conversation the agent is replayed on: the user's, or the agent's earlier answer. */
const message = z.object({ role: z.enum(['user', 'assistant']), content: z.string() })
const toolCall = z.object({ name: z.string().min(1), arguments: z.unknown().optional(), result: z.unknown().optional() })

/**
 * One regression case, one JSONL line. Everything under input, context and observed has been
 * scrubbed; expected holds the parameters of the checks that failed (from the checks config, not
 * from user data) and the judge rubric that scored it low, which the regression gate runs again on
 * a replay.
 */
export const goldenExampleSchema = z
  .object({
    version: z.literal(DATASET_VERSION),
    /** Stable: derived from project and trace id, so the same trace always yields the same id. */
    id: z.string().regex(/^ex_[0-9a-f]{16}$/, 'must be ex_ followed by 16 hex digits'),
    /** Every earlier turn in order, the user's last turn last: the agent is called once per user turn. */
    input: z.object({
      messages: z
        .array(message)
        .min(1, 'needs at least one user turn')
        .refine((m) => m.length === 0 || m.at(-1)!.role === 'user', { message: "the last message must be the user's turn the agent answers" }),
    }),
    context: z.object({
      systemPrompt: z.string().optional(),
      promptVersion: z.string().optional(),
      retrievedDocumentIds: z.array(z.string()).default([]),
      toolResults: z.array(toolCall).default([]),
    }),
    expected: z
      .object({
        /** Check name → parameters; on replay each of these must pass. */
        checks: z.record(z.string(), z.unknown()),
        /** The judge rubric that scored the trace low: on replay (judge enabled) it must pass. */
        judge: z.object({ rubric: z.string().min(1) }).optional(),
        prohibited_tools: z.array(z.string()).optional(),
        required_tools: z.array(z.string()).optional(),
        must_contain: z.array(z.string()).optional(),
        schema: z.unknown().optional(),
      })
      .refine((e) => Object.keys(e.checks).length > 0 || e.judge !== undefined, { path: ['checks'], message: 'needs at least one check, or a judge rubric' }),
    observed: z.object({ output: z.string(), toolCalls: z.array(toolCall).default([]) }),
    bucket: z.enum(BUCKETS),
    tags: z.array(z.string()).default([]),
    source: z.object({
      traceId: z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 lower-case hex digits'),
      projectId: z.string().min(1),
      service: z.string(),
      agentName: z.string(),
      agentVersion: z.string(),
      promptVersion: z.string(),
      model: z.string(),
      exportedAt: z.iso.datetime(),
    }),
    scores: z.array(z.object({ name: z.string().min(1), kind: z.string().min(1), value: z.number().min(0).max(1), passed: z.boolean() })),
    /** After this date the example should be looked at again: the product may have changed. */
    reviewBy: z.iso.date(),
  })
  .strict()

export type GoldenExample = z.output<typeof goldenExampleSchema>
