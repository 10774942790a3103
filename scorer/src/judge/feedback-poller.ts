import type { ClickHouseClient } from '@clickhouse/client'
import type { FeedbackIndex } from './feedback-index.js'

export interface FeedbackPollOptions {
  intervalMs?: number
  /** How far back the first read looks. */
  lookbackMs?: number
  onError?: (err: Error) => void
}

/**
 * Keeps the judge's feedback index current from the `feedback` table, so the negative-feedback
 * slice sees what users said about a trace before it was scored. Reads only rows newer than the
 * last read (by `created_at`).
 */
export function pollFeedback(storage: ClickHouseClient, index: FeedbackIndex, options: FeedbackPollOptions = {}) {
  const intervalMs = options.intervalMs ?? 2000
  let since = new Date(Date.now() - (options.lookbackMs ?? 86_400_000)).toISOString().replace('T', ' ').replace('Z', '')
  let running: Promise<void> | undefined
  const poll = async () => {
    const result = await storage.query({
      query: `SELECT project_id, trace_id, min(score) AS lowest, toString(max(created_at)) AS last
              FROM feedback WHERE created_at > parseDateTime64BestEffort({since:String}, 3)
              GROUP BY project_id, trace_id`,
      query_params: { since },
      format: 'JSONEachRow',
    })
    for (const row of await result.json<{ project_id: string; trace_id: string; lowest: number; last: string }>()) {
      index.record(row.project_id, row.trace_id, Number(row.lowest))
      if (row.last > since) since = row.last
    }
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
