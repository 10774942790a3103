import type { Storage } from '@sieve/core'

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
}

/**
 * Reads the `feedback` table for the judge: feedback given before a trace is scored steers its
 * sampling, feedback given after re-opens it (JudgeStage.feedbackArrived). Reads only rows newer
 * than the last read (by `created_at`); a poll ends when `onFeedback` has handled its rows.
 */
export function pollFeedback(storage: Storage, onFeedback: (rows: FeedbackSeen[]) => void | Promise<void>, options: FeedbackPollOptions = {}) {
  const intervalMs = options.intervalMs ?? 2000
  let since = new Date(Date.now() - (options.lookbackMs ?? 86_400_000)).toISOString().replace('T', ' ').replace('Z', '')
  let running: Promise<void> | undefined
  const poll = async () => {
    const result = await storage.query({
      query: `SELECT project_id, trace_id, min(score) AS lowest, toString(max(created_at)) AS last
              FROM feedback WHERE created_at > parseDateTime64BestEffort({since:String}, 3, 'UTC')
              GROUP BY project_id, trace_id`,
      query_params: { since },
      format: 'JSONEachRow',
    })
    const rows = await result.json<{ project_id: string; trace_id: string; lowest: number; last: string }>()
    let last = since
    for (const row of rows) if (row.last > last) last = row.last
    if (rows.length) await onFeedback(rows.map((r) => ({ projectId: r.project_id, traceId: r.trace_id, lowest: Number(r.lowest) })))
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
