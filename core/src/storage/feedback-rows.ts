import type { Storage } from './storage.js'
import { setAttribute, wellFormed } from '../span-values.js'
import type { Feedback } from '@sieve/protocol'

/**
 * Stores one validated feedback body in `feedback` (migrations/0004_feedback.sql) for a project.
 * Free text goes through `wellFormed`, as every string of a span does: JSON lets a body carry a
 * lone surrogate (`"\ud800"`, an emoji cut in half), which has no UTF-8 form, and ClickHouse
 * refuses the whole insert over it (a 503 asking to retry what can never be stored). It is stored
 * as U+FFFD. traceId, spanId and source are ASCII by the schema; the route repairs feedbackId,
 * which it also answers with.
 */
export async function insertFeedback(client: Storage, projectId: string, feedback: Feedback & { feedbackId: string }): Promise<void> {
  await insertFeedbackRows(client, projectId, [feedback])
}

/** Several feedback bodies of one project in one insert: all stored, or none (a review label's dimensions). */
export async function insertFeedbackRows(client: Storage, projectId: string, feedback: readonly (Feedback & { feedbackId: string })[]): Promise<void> {
  await client.insert({
    table: 'feedback',
    format: 'JSONEachRow',
    values: feedback.map((f) => {
      const attributes: Record<string, string> = {}
      for (const [key, value] of Object.entries(f.attributes ?? {})) setAttribute(attributes, wellFormed(key), wellFormed(value))
      return {
        project_id: projectId,
        feedback_id: f.feedbackId,
        trace_id: f.traceId,
        span_id: f.spanId ?? '',
        score: f.score,
        comment: wellFormed(f.comment ?? ''),
        source: f.source,
        user_id: wellFormed(f.userId ?? ''),
        attributes,
      }
    }),
  })
}
