import type { Storage } from '@sieve/core'

/** A reviewer acting on one trace of a rubric's queue. */
export interface ReviewerAction {
  rubric: string
  traceId: string
  reviewer: string
}

/** This reviewer passes over the trace (`skipped`) or takes that back (undo). */
export async function setSkipped(client: Storage, projectId: string, action: ReviewerAction, skipped: boolean): Promise<void> {
  await client.insert({
    table: 'review_skips',
    format: 'JSONEachRow',
    values: [{ project_id: projectId, rubric_id: action.rubric, trace_id: action.traceId, reviewer: action.reviewer, skipped: skipped ? 1 : 0 }],
  })
}
