import { z } from 'zod'

/** Version of the golden example schema below; bump when a field changes meaning. */
export const DATASET_VERSION = 1

export const BUCKETS = ['typical', 'edge', 'known-failure'] as const

/** A turn of the conversation the agent is replayed on: the user's, or the agent's earlier answer. */
const message = z.object({ role: z.enum(['user', 'assistant']), content: z.string() })
const toolCall = z.object({ name: z.string().min(1), arguments: z.unknown().optional(), result: z.unknown().optional() })
/** A least value on the 0..1 scale every score uses. */
const floor = z.number().min(0).max(1)
const scoreName = z.string().min(1)

/**
 * Why `sieve export` picked the trace: one entry per filter it was selected by (filters combine),
 * `failure` when none was given. Readers see what the example stands for without the store.
 */
export const selectionReasonSchema = z.discriminatedUnion('by', [
  /** No filter: a failed check, a failed judge score or a failed scorecard. */
  z.strictObject({ by: z.literal('failure') }),
  /** `--failed NAME`: that score failed. */
  z.strictObject({ by: z.literal('failed_check'), name: scoreName }),
  /** `--score NAME --below X`: that score was below X, whether or not it passed. */
  z.strictObject({ by: z.literal('score_below'), name: scoreName, below: floor }),
  /** `--failed-gate NAME|any`: the latest scorecard (`card`) failed these gates. */
  z.strictObject({ by: z.literal('failed_gate'), name: scoreName, card: z.string().optional(), gates: z.array(scoreName).min(1) }),
  /** `--feedback` / `--feedback-comment`: the lowest matching feedback, its comment scrubbed. */
  z.strictObject({ by: z.literal('feedback'), feedback: z.strictObject({ score: z.number(), comment: z.string().optional() }) }),
])

export type SelectionReason = z.output<typeof selectionReasonSchema>

/** A replay's judge: the rubric, and floors the example adds to its passing threshold. */
const judgeExpectation = z
  .object({
    rubric: z.string().min(1),
    /**
     * Score name → least value on replay: `<rubric>` for the weighted score, `<rubric>.<dimension>`
     * for a dimension. Written by `--score NAME --below X` so the replay must reach X again.
     */
    floors: z.record(z.string(), floor).optional(),
  })
  .superRefine((j, ctx) => {
    for (const key of Object.keys(j.floors ?? {})) {
      if (key !== j.rubric && !key.startsWith(`${j.rubric}.`))
        ctx.addIssue({ code: 'custom', path: ['floors', key], message: `a floor is keyed ${j.rubric} or ${j.rubric}.<dimension>` })
    }
  })

/**
 * What a replay (or a simulated run, `sieve simulate`'s `expect`) must show: checks with their
 * parameters, the judge's rubric, least values for some checks.
 */
export const expectationShape = {
  /** Check name → parameters; on replay each of these must pass. */
  checks: z.record(z.string(), z.unknown()),
  /** The judge rubric that scored the trace low: on replay (judge enabled) it must pass, and meet its floors. */
  judge: judgeExpectation.optional(),
  /** Check name (one of `checks`) → least value on replay: a check passing below it fails the run. */
  minValues: z.record(z.string(), floor).optional(),
}

/** A check or a rubric to score by, and least values only for expected checks (`checksField` names them in messages). */
export const expectationRules =
  (checksField: string) =>
  (e: { checks: Record<string, unknown>; judge?: unknown; minValues?: Record<string, number> }, ctx: z.RefinementCtx): void => {
    if (!Object.keys(e.checks).length && e.judge === undefined)
      ctx.addIssue({ code: 'custom', path: ['checks'], message: 'needs at least one check, or a judge rubric' })
    for (const name of Object.keys(e.minValues ?? {})) {
      if (!(name in e.checks)) ctx.addIssue({ code: 'custom', path: ['minValues', name], message: `${name} is not among ${checksField}` })
    }
  }

/**
 * One regression case, one JSONL line. Everything under input, context and observed has been
 * scrubbed; expected holds the parameters of the checks that failed (from the checks config, not
 * from user data), the judge rubric that scored it low and the least values a selection by score
 * asked for, which the regression gate runs again on a replay. Every field added since version 1
 * is optional: older files stay valid.
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
        ...expectationShape,
        prohibited_tools: z.array(z.string()).optional(),
        required_tools: z.array(z.string()).optional(),
        must_contain: z.array(z.string()).optional(),
        schema: z.unknown().optional(),
      })
      .superRefine(expectationRules('expected.checks')),
    observed: z.object({ output: z.string(), toolCalls: z.array(toolCall).default([]) }),
    bucket: z.enum(BUCKETS),
    tags: z.array(z.string()).default([]),
    /** Why export selected the trace (absent in files written before it was recorded). */
    selected: z.array(selectionReasonSchema).min(1).optional(),
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
