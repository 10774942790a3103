import { z } from 'zod'
import { spanIdSchema, traceIdSchema } from './ids.js'

/**
 * The body of `POST /v1/feedback`: one user judgement of a trace (thumbs, a rating, a comment).
 * The SDK sends it; the collector validates it with this schema and stores it.
 */
export const feedbackSchema = z.object({
  traceId: traceIdSchema,
  spanId: spanIdSchema.optional(),
  /** Thumbs as 1 / -1 (or 1 / 0), ratings on the app's own scale. */
  score: z.number().finite(),
  comment: z.string().max(10_000).optional(),
  /** Who judged: `user` (default), `annotator`, `api`... */
  source: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'source must be 1-64 letters, digits, _ . -')
    .default('user'),
  userId: z.string().max(256).optional(),
  /** Makes a resend idempotent: the same id replaces the earlier row. Generated when missing. */
  feedbackId: z.string().min(1).max(128).optional(),
  attributes: z.record(z.string().max(256), z.string().max(4096)).optional(),
})

export type FeedbackInput = z.input<typeof feedbackSchema>
export type Feedback = z.output<typeof feedbackSchema>
