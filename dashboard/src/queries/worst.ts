import { TupleParam } from '@clickhouse/client'
import type { Storage } from '@sieve/core'
import { figureTrust, readTrust } from '@sieve/review'
import { chTime, filterSql, rows } from '../db.js'
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

/** The names whose failing scores in effect add up to more than none. */
const failing = (column: string) => `mapKeys(mapFilter((name, n) -> n > 0, sumMap(${column})))`

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
  const params = { project: projectId, from: chTime(q.from), to: chTime(q.to), check: q.check ?? '', k: q.limit * 4, ...f.params }
  const range = `project_id = {project:String} AND trace_start_time >= {from:DateTime64(3)} AND trace_start_time < {to:DateTime64(3)}${f.sql}`
  // Candidates are ranked by their sums over the range. Only rows that move one of the sums are
  // grouped (a trace without failures, or without judge scores, has none), which keeps it cheap.
  const checkSums = '(sumMap(failed_checks)[{check:String}] > 0 OR sumMap(judge_failed)[{check:String}] > 0)'
  const checkRows = 'failed_checks[{check:String}] != 0 OR judge_failed[{check:String}] != 0'
  const [moving, qualifies, rank] =
    q.sort === 'checks'
      ? ['checks_failed != 0', 'sum(checks_failed) > 0', 'sum(checks_failed) DESC']
      : ['judge_scores != 0 OR judge_value_sum != 0', 'sum(judge_scores) > 0', 'sum(judge_value_sum) / sum(judge_scores) ASC']
  const candidates = await rows<{ trace_id: string; start: string }>(
    client,
    `SELECT trace_id, toString(trace_start_time) AS start FROM trace_quality
     WHERE ${range} AND (${moving}${q.check ? ` OR ${checkRows}` : ''})
     GROUP BY trace_start_time, trace_id
     HAVING ${qualifies}${q.check ? ` AND ${checkSums}` : ''}
     ORDER BY ${rank}, trace_start_time DESC LIMIT {k:UInt32}`,
    params,
  )
  if (candidates.length === 0) return []
  // Both read by primary key, trace_quality by (start time, trace id) and traces by trace id: only the candidates' granules are read.
  const keys = [...new Map(candidates.map((r) => [r.trace_id, new TupleParam([r.start, r.trace_id])])).values()]
  const byKey = "{keys:Array(Tuple(DateTime64(9, 'UTC'), String))}"
  const ids = [...new Set(candidates.map((r) => r.trace_id))]

  const [scored, traces, judged, trust] = await Promise.all([
    rows<{
      trace_id: string
      start_ms: number
      service: string
      agent: string
      prompt: string
      llm: string
      checks: number
      checks_failed: number
      failed_checks: string[]
      judge_scores: number
      judge_value_sum: number
      judge_failed: string[]
    }>(
      client,
      `SELECT trace_id, toUnixTimestamp64Milli(min(trace_start_time)) AS start_ms, max(service_name) AS service, max(agent_version) AS agent,
              max(prompt_version) AS prompt, max(model) AS llm, sum(checks) AS checks, sum(checks_failed) AS checks_failed,
              ${failing('failed_checks')} AS failed_checks, sum(judge_scores) AS judge_scores,
              sum(judge_value_sum) AS judge_value_sum, ${failing('judge_failed')} AS judge_failed
       FROM trace_quality WHERE project_id = {project:String} AND (trace_start_time, trace_id) IN ${byKey}
       GROUP BY trace_id`,
      { ...params, keys },
    ),
    rows<{ trace_id: string; root_name: string; duration_ns: number; span_count: number; error_count: number }>(
      client,
      `SELECT trace_id, root_name, duration_ns, span_count, error_count FROM traces FINAL
       WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)}`,
      { ...params, ids },
    ),
    judgeMeans(client, { ...params, ids }),
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

/**
 * Per trace, the mean of its rubric scores and of its dimension scores in effect. A judge row named
 * `<rubric>` is a rubric's weighted score, `<rubric>.<dimension>` one dimension's (rubric ids are
 * kebab-case, never dotted: judge/src/rubric.ts). In effect, as the rollups count: the
 * latest row by created_at per (trace, check, span) whatever its version; a latest row that is a
 * judge error is no score. argMax over every stored row picks it, replaced copies included, so the
 * read needs no FINAL, which would merge every granule the candidates touch: on 10 million spans
 * the candidates' ids hit most granules of a day, and FINAL took 0.7 s of the list's 1 s.
 */
async function judgeMeans(
  client: Storage,
  params: { project: string; from: string; to: string; ids: string[] },
): Promise<Map<string, { rubricMean: number | null; dimensionMean: number | null; names: string[] }>> {
  const found = await rows<{ trace_id: string; rubrics: number; rubric_sum: number; dimensions: number; dimension_sum: number; names: string[] }>(
    client,
    `SELECT trace_id,
            countIf(rubric) AS rubrics, sumIf(value, rubric) AS rubric_sum,
            countIf(NOT rubric) AS dimensions, sumIf(value, NOT rubric) AS dimension_sum, groupUniqArray(scorer_name) AS names
     FROM (
       SELECT trace_id, scorer_name, position(scorer_name, '.') = 0 AS rubric,
              argMax(value, created_at) AS value, argMax(error, created_at) AS error
       FROM scores
       WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)} AND kind = 'judge'
         -- The range the candidates were ranked over, as trace_quality holds it (and only its days' partitions are read).
         AND trace_start_time >= {from:DateTime64(3)} AND trace_start_time < {to:DateTime64(3)}
       GROUP BY trace_id, scorer_name, span_id
     )
     WHERE error = ''
     GROUP BY trace_id`,
    params,
  )
  return new Map(
    found.map((r) => [
      r.trace_id,
      { rubricMean: r.rubrics ? r.rubric_sum / r.rubrics : null, dimensionMean: r.dimensions ? r.dimension_sum / r.dimensions : null, names: r.names },
    ]),
  )
}
