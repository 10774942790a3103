import { feedbackSince, type Storage } from '@sieve/core'
import { ANNOTATOR_SOURCE, WITHDRAWN_SOURCE } from '@sieve/review'

/** Feedback read in one poll: the lowest score among a trace's new feedback rows. */
export interface FeedbackSeen {
  projectId: string
  traceId: string
  lowest: number
}

export interface FeedbackPollOptions {
  intervalMs?: number
  /** How far back the first read looks. */
  lookbackMs?: number
  onError?: (err: Error) => void
  /**
   * Labels given or withdrawn (sources 'annotator', 'annotator_withdrawn'), per project the rubrics
   * they label. They are rubric levels, not a user's verdict on the answer: never in `onFeedback`.
   */
  onAnnotations?: (projects: { projectId: string; rubrics: string[] }[]) => void | Promise<void>
}

/**
 * Reads the `feedback` table for the judge: feedback given before a trace is scored steers its
 * sampling, feedback given after re-opens it (JudgeStage.feedbackArrived); labels go to
 * `onAnnotations` (the review queues recalibrate). Reads only rows newer than the last read (by
 * `created_at`); a poll ends when both have handled its rows.
 */
export function pollFeedback(storage: Storage, onFeedback: (rows: FeedbackSeen[]) => void | Promise<void>, options: FeedbackPollOptions = {}) {
  const intervalMs = options.intervalMs ?? 2000
  let since = new Date(Date.now() - (options.lookbackMs ?? 86_400_000)).toISOString().replace('T', ' ').replace('Z', '')
  let running: Promise<void> | undefined
  const poll = async () => {
    const rows = await feedbackSince(storage, since, [ANNOTATOR_SOURCE, WITHDRAWN_SOURCE])
    let last = since
    for (const row of rows) if (row.last > last) last = row.last
    const rated = rows.filter((r) => Number(r.rated) > 0)
    if (rated.length) await onFeedback(rated.map((r) => ({ projectId: r.project_id, traceId: r.trace_id, lowest: Number(r.lowest) })))
    const labelled = new Map<string, Set<string>>()
    for (const r of rows) for (const rubric of r.rubrics) if (rubric) labelled.set(r.project_id, (labelled.get(r.project_id) ?? new Set()).add(rubric))
    if (labelled.size) await options.onAnnotations?.([...labelled].map(([projectId, rubrics]) => ({ projectId, rubrics: [...rubrics] })))
    // Moved on only once handled: rows whose handling failed are read again by the next poll.
    since = last
  }
  const tick = () => {
    running ??= poll()
      .catch((err: Error) => options.onError?.(err))
      .finally(() => {
        running = undefined
      })
    return running
  }
  const timer = setInterval(tick, intervalMs)
  timer.unref()
  void tick()
  return {
    /** Reads now (tests, and the first read at start). */
    poll: tick,
    stop: () => clearInterval(timer),
  }
}
