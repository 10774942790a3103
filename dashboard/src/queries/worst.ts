import { TupleParam, type ClickHouseClient } from '@clickhouse/client'
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
  judgeScores: number
  judgeMean: number | null
  judgeFailed: string[]
}

/** The names whose failing scores in effect add up to more than none. */
const failing = (column: string) => `mapKeys(mapFilter((name, n) -> n > 0, sumMap(${column})))`

/**
 * Lowest-scoring traces of a time range: most failed checks first (`sort=checks`), or lowest mean
 * judge score first (`sort=judge`). Candidates are the top traces by their netted sums (a re-score's
 * -1 rows cancel what it replaced, see migrations/0007); they are then read in full by primary key
 * and ranked again with the tie-breaks.
 */
export async function worst(client: ClickHouseClient, projectId: string, q: WorstQuery): Promise<WorstTrace[]> {
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
  // (start time, trace id) is the primary key of both tables read next: only the candidates' granules are read.
  const keys = [...new Map(candidates.map((r) => [r.trace_id, new TupleParam([r.start, r.trace_id])])).values()]
  const byKey = '{keys:Array(Tuple(DateTime64(9, \'UTC\'), String))}'

  const [scored, traces] = await Promise.all([
    rows<{
      trace_id: string; start_ms: number; service: string; agent: string; prompt: string; llm: string
      checks: number; checks_failed: number; failed_checks: string[]; judge_scores: number; judge_value_sum: number; judge_failed: string[]
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
       WHERE project_id = {project:String} AND (start_time, trace_id) IN ${byKey}`,
      { ...params, keys },
    ),
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
      judgeMean: r.judge_scores ? r.judge_value_sum / r.judge_scores : null,
      judgeFailed: r.judge_failed.sort(),
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
