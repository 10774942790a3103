import { lowestFeedback, type Storage } from '@sieve/core'
import { type ScoreSelection, selectScoreRows } from '@sieve/scoring'
import { z } from 'zod'
import type { StoredScore } from './stored-score.js'

export type { FeedbackFilter } from '@sieve/core'
export { countExportedTraces as countExported } from '@sieve/scoring'
/** Which traces to export (scoring's `ScoreSelection`). */
export type Selection = ScoreSelection

/** A trace's latest scorecard row (`kind = 'scorecard'`), as much of its detail as export reads. */
const scorecardDetail = z.object({
  card: z.string().default(''),
  failedGates: z.array(z.string()).default([]),
  items: z.array(z.object({ name: z.string(), min: z.number().optional() })).default([]),
})

export type StoredScorecard = z.output<typeof scorecardDetail>

export interface Candidate {
  traceId: string
  scores: StoredScore[]
  /** Its latest scorecard, when it has one. */
  scorecard?: StoredScorecard
  /** The lowest feedback row matching `Selection.feedback` (given only then). */
  feedback?: { score: number; comment: string }
}

/** Low-scoring or failing traces, newest first, each with every score it has, not yet in the dataset. */
export async function selectTraces(client: Storage, s: Selection): Promise<Candidate[]> {
  const rows = await selectScoreRows(client, s)
  const feedback = s.feedback
    ? await lowestFeedback(
        client,
        s.projectId,
        rows.map((r) => r.traceId),
        s.feedback,
      )
    : new Map()
  return rows.map((r) => {
    const scorecard = readScorecard(r.card)
    const chosen = feedback.get(r.traceId)
    return {
      traceId: r.traceId,
      scores: r.scores.map(([name, kind, value, passed, configHash]) => ({ name, kind, value: Number(value), passed: Number(passed) === 1, configHash })),
      ...(scorecard ? { scorecard } : {}),
      ...(chosen ? { feedback: chosen } : {}),
    }
  })
}

/** A scorecard row's detail; a detail that is not one (another scorer's format) is no scorecard. */
function readScorecard(detail: string): StoredScorecard | undefined {
  if (!detail) return undefined
  try {
    const parsed = scorecardDetail.safeParse(JSON.parse(detail))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
