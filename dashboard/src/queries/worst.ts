import { readTraceQualityOf, readTraceSummaries, readWorstCandidates, type Storage } from '@sieve/core'
import { figureTrust, readTrust } from '@sieve/review'
import { readJudgeMeans } from '@sieve/scoring'
import { chTime, filterSql } from '../db.js'
import type { WorstQuery } from '../params.js'

export interface WorstTrace {
  traceId: string
  startTime: string
  serviceName: string
  agentVersion: string
  promptVersion: string
  model: string
  rootName: string
  durationMs: number | null
  spanCount: number | null
  errorCount: number | null
  checks: number
  checksFailed: number
  failedChecks: string[]
  /** Judge scores in effect, rubric and dimension rows alike, errors left out (the rollup's count). */
  judgeScores: number
  /**
   * Mean of the trace's rubric scores in effect: the weighted score each rubric's judgment writes
   * under the rubric's name. Null when no rubric score is in effect (not judged, or every judgment
   * failed or left a dimension unscored). `sort=judge` ranks by this figure.
   */
  judgeMean: number | null
  /** Mean of the per-dimension scores (`<rubric>.<dimension>`) in effect, never mixed into judgeMean. */
  judgeDimensionMean: number | null
  judgeFailed: string[]
  /** Its judge scores in effect read a dimension that breaks a trust rule (judge's figureTrust): the judge figures are not to be trusted. */
  judgeUntrusted: boolean
}

/**
 * Lowest-scoring traces of a time range: most failed checks first (`sort=checks`), or lowest mean
 * rubric score first (`sort=judge`). Candidates are the top traces by their netted sums (a re-score's
 * -1 rows cancel what it replaced, see migrations/0007); they are then read in full by primary key
 * and ranked again with the tie-breaks.
 *
 * The judge figure is not the rollup's: `trace_quality` sums every judge score, a rubric's weighted
 * score and its dimensions' scores together, and a mean over those counts each dimension twice. So
 * the candidates' judge scores are read again from `scores` (the latest row per check), and both the figure shown
 * (judgeMean) and the final ranking use the rubric scores only. The rollup's mixed mean still picks
 * the `sort=judge` candidates (4 × limit of them); it is close to the rubric mean (a weighted score
 * lies between its dimensions' lowest and highest), but a trace whose rubric score is low while its
 * dimensions' plain mean is high can rank just outside the candidates and be missed. Ranking every
 * judged trace of a range by its rubric score exactly would need the rollup to sum rubric scores
 * apart (a migration).
 */
export async function worst(client: Storage, projectId: string, q: WorstQuery): Promise<WorstTrace[]> {
  const f = filterSql(q)
  const range = { projectId, from: chTime(q.from), to: chTime(q.to), filter: f }
  const candidates = await readWorstCandidates(client, { ...range, sort: q.sort, check: q.check, k: q.limit * 4 })
  if (candidates.length === 0) return []
  const ids = [...new Set(candidates.map((r) => r.trace_id))]

  const [scored, traces, judged, trust] = await Promise.all([
    readTraceQualityOf(client, projectId, candidates),
    readTraceSummaries(client, projectId, ids),
    readJudgeMeans(client, { project: projectId, from: range.from, to: range.to, ids }),
    readTrust(client, projectId),
  ])
  const traceById = new Map(traces.map((t) => [t.trace_id, t]))
  const result: WorstTrace[] = scored.map((r) => {
    const t = traceById.get(r.trace_id)
    return {
      traceId: r.trace_id,
      startTime: new Date(r.start_ms).toISOString(),
      serviceName: r.service,
      agentVersion: r.agent,
      promptVersion: r.prompt,
      model: r.llm,
      rootName: t?.root_name ?? '',
      durationMs: t ? t.duration_ns / 1e6 : null,
      spanCount: t?.span_count ?? null,
      errorCount: t?.error_count ?? null,
      checks: r.checks,
      checksFailed: r.checks_failed,
      failedChecks: r.failed_checks.sort(),
      judgeScores: r.judge_scores,
      judgeMean: judged.get(r.trace_id)?.rubricMean ?? null,
      judgeDimensionMean: judged.get(r.trace_id)?.dimensionMean ?? null,
      judgeFailed: r.judge_failed.sort(),
      judgeUntrusted: (judged.get(r.trace_id)?.names ?? []).some((name) => figureTrust(name, trust) === false),
    }
  })
  const judge = (t: WorstTrace) => t.judgeMean ?? Number.POSITIVE_INFINITY
  result.sort((x, y) =>
    q.sort === 'checks'
      ? y.checksFailed - x.checksFailed || judge(x) - judge(y) || y.startTime.localeCompare(x.startTime)
      : judge(x) - judge(y) || y.checksFailed - x.checksFailed || y.startTime.localeCompare(x.startTime),
  )
  return result.slice(0, q.limit)
}
