import type { Storage } from '@sieve/core'
import { readTrace, type Trace } from '@sieve/core'
import type { FeedbackSeen } from './feedback-poller.js'
import { storedVerdicts } from '@sieve/scoring'

export interface LateFeedbackDeps {
  storage: Storage
  /** Sample reasons of the negative-feedback slices: a judge score with one of them means "judged for it". */
  reasons: readonly string[]
  /** Feedback at or below this could pick the trace for one of those slices. */
  maxScore: number
  /** Judged (or queued) for negative feedback by this process already. */
  taken(projectId: string, traceId: string): boolean
  /** Offers the stored trace to the negative-feedback slices; returns the slice that took it. */
  offer(trace: Trace, lowest: number): string | undefined
}

/**
 * Negative feedback on a trace the scorer has already scored: reads the trace back from storage
 * and offers it to the negative-feedback slices, unless the judge already scored it for that
 * reason (in the `scores` table, so a restart does not judge it again). A trace not scored yet
 * is left to the scorer, whose offer sees the feedback. Resolves to the traces offered.
 */
export async function reopenForFeedback(deps: LateFeedbackDeps, rows: readonly FeedbackSeen[]): Promise<Trace[]> {
  const byProject = new Map<string, FeedbackSeen[]>()
  for (const row of rows) {
    if (row.lowest > deps.maxScore || deps.taken(row.projectId, row.traceId)) continue
    const list = byProject.get(row.projectId)
    if (list) list.push(row)
    else byProject.set(row.projectId, [row])
  }
  const offered: Trace[] = []
  for (const [projectId, list] of byProject) {
    const verdicts = await storedVerdicts(
      deps.storage,
      projectId,
      list.map((r) => r.traceId),
      deps.reasons,
    )
    for (const row of list) {
      const v = verdicts.get(row.traceId.toLowerCase())
      if (!v?.scored || v.judged) continue
      const trace = await readTrace(deps.storage, projectId, row.traceId)
      // Asked again here: the scorer may have offered it while this was reading.
      if (trace && !deps.taken(projectId, trace.traceId) && deps.offer(trace, row.lowest) !== undefined) offered.push(trace)
    }
  }
  return offered
}
