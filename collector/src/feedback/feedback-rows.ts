import type { ClickHouseClient } from '@clickhouse/client'
import type { Feedback } from '@sieve/sdk/feedback-schema'

/** Stores one validated feedback body in `feedback` (migrations/0004_feedback.sql) for a project. */
export async function insertFeedback(client: ClickHouseClient, projectId: string, feedback: Feedback & { feedbackId: string }): Promise<void> {
  await client.insert({
    table: 'feedback',
    format: 'JSONEachRow',
    values: [
      {
        project_id: projectId,
        feedback_id: feedback.feedbackId,
        trace_id: feedback.traceId,
        span_id: feedback.spanId ?? '',
        score: feedback.score,
        comment: feedback.comment ?? '',
        source: feedback.source,
        user_id: feedback.userId ?? '',
        attributes: feedback.attributes ?? {},
      },
    ],
  })
}
