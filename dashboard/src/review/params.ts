import { queryCount } from '@sieve/http'
import { reviewRulesSchema } from '@sieve/review'
import { traceIdSchema } from '@sieve/protocol'
import { z } from 'zod'

/**
 * Inputs of the review queue's routes (`/api/review/...`), one zod schema each. Whether a rubric is
 * one this Sieve loaded, and whether a level is on its dimension's scale, is checked by the route
 * against the rubrics (review/rubric-check.ts): a schema cannot know them.
 */

export const rubricParam = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z][a-z0-9-]*$/, 'a rubric id is kebab-case (generic, customer-support)')

/**
 * Who labels: recorded with each label beside the API key's project (feedback `user_id`), and
 * what tells a second labeller from the first. A name, not an account: the API key is the access.
 */
export const reviewerParam = z
  .string()
  .trim()
  .min(1, 'a reviewer name is needed: it is recorded with each label')
  .max(64, 'a reviewer name is at most 64 characters')
  .regex(/^[\p{L}\p{N}][\p{L}\p{N} ._@'-]*$/u, "a reviewer name is letters, digits, spaces and . _ @ ' -, starting with a letter or digit")

export const queuesQuery = z.strictObject({ reviewer: reviewerParam.optional() })

/** The next trace for a reviewer, or (`traceId`) one trace of the queue whatever its state. */
export const nextQuery = z.strictObject({ rubric: rubricParam, reviewer: reviewerParam, traceId: traceIdSchema.optional() })

const MAX_DIMENSIONS = 50

export const labelBody = z.strictObject({
  rubric: rubricParam,
  traceId: traceIdSchema,
  reviewer: reviewerParam,
  /** Dimension id → level. */
  labels: z
    .record(z.string().min(1).max(64), z.number().finite())
    .refine((l) => Object.keys(l).length > 0, 'give a level for at least one dimension')
    .refine((l) => Object.keys(l).length <= MAX_DIMENSIONS, `at most ${MAX_DIMENSIONS} dimensions`),
  note: z.string().max(2000, 'a note is at most 2000 characters').optional(),
})
export type LabelBody = z.output<typeof labelBody>

/** One trace of one queue, for one reviewer: skip, undo, a manual add. */
export const traceActionBody = z.strictObject({ rubric: rubricParam, traceId: traceIdSchema, reviewer: reviewerParam })
export type TraceAction = z.output<typeof traceActionBody>

export const rubricQuery = z.strictObject({ rubric: rubricParam })

export const rulesBody = z.strictObject({ rubric: rubricParam, reviewer: reviewerParam, rules: reviewRulesSchema })

export const calibrationQuery = z.strictObject({
  rubric: rubricParam,
  /** The newest calibrations drawn per dimension. */
  points: queryCount(1, 5000).default(500),
})

export const labelsExportQuery = z.strictObject({ rubric: rubricParam.optional() })
