import { TupleParam } from '@clickhouse/client'
import { readRows } from './read-rows.js'
import type { FilteredRange } from './sql-filter.js'
import type { Storage } from './storage.js'

/** The names whose failing scores in effect add up to more than none. */
const failing = (column: string) => `mapKeys(mapFilter((name, n) -> n > 0, sumMap(${column})))`

/** The candidates of the lowest-scoring traces of a range (`trace_quality`), by failed checks or by the judge's mean. */
export interface WorstCandidates extends FilteredRange {
  sort: 'checks' | 'judge'
  /** Only traces that failed this check or judge score. */
  check?: string | undefined
  /** How many. */
  k: number
}

/**
 * The top `k` traces of the range by their netted sums in `trace_quality` (a re-score's -1 rows
 * cancel what it replaced, see migrations/0007), each with its start as stored.
 */
export async function readWorstCandidates(client: Storage, q: WorstCandidates): Promise<{ trace_id: string; start: string }[]> {
  const f = q.filter
  const params = { project: q.projectId, from: q.from, to: q.to, check: q.check ?? '', k: q.k, ...f.params }
  const range = `project_id = {project:String} AND trace_start_time >= {from:DateTime64(3)} AND trace_start_time < {to:DateTime64(3)}${f.sql}`
  // Candidates are ranked by their sums over the range. Only rows that move one of the sums are
  // grouped (a trace without failures, or without judge scores, has none), which keeps it cheap.
  const checkSums = '(sumMap(failed_checks)[{check:String}] > 0 OR sumMap(judge_failed)[{check:String}] > 0)'
  const checkRows = 'failed_checks[{check:String}] != 0 OR judge_failed[{check:String}] != 0'
  const [moving, qualifies, rank] =
    q.sort === 'checks'
      ? ['checks_failed != 0', 'sum(checks_failed) > 0', 'sum(checks_failed) DESC']
      : ['judge_scores != 0 OR judge_value_sum != 0', 'sum(judge_scores) > 0', 'sum(judge_value_sum) / sum(judge_scores) ASC']
  return readRows<{ trace_id: string; start: string }>(
    client,
    `SELECT trace_id, toString(trace_start_time) AS start FROM trace_quality
     WHERE ${range} AND (${moving}${q.check ? ` OR ${checkRows}` : ''})
     GROUP BY trace_start_time, trace_id
     HAVING ${qualifies}${q.check ? ` AND ${checkSums}` : ''}
     ORDER BY ${rank}, trace_start_time DESC LIMIT {k:UInt32}`,
    params,
  )
}

/** The candidates' rows of `trace_quality`, summed per trace, read by primary key (start time, trace id). */
export async function readTraceQualityOf(client: Storage, projectId: string, candidates: readonly { trace_id: string; start: string }[]) {
  // Both read by primary key, trace_quality by (start time, trace id) and traces by trace id: only the candidates' granules are read.
  const keys = [...new Map(candidates.map((r) => [r.trace_id, new TupleParam([r.start, r.trace_id])])).values()]
  const byKey = "{keys:Array(Tuple(DateTime64(9, 'UTC'), String))}"
  return readRows<{
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
    { project: projectId, keys },
  )
}

/** Root name, duration, span and error counts of the traces, read from `traces` by trace id. */
export async function readTraceSummaries(client: Storage, projectId: string, ids: readonly string[]) {
  return readRows<{ trace_id: string; root_name: string; duration_ns: number; span_count: number; error_count: number }>(
    client,
    `SELECT trace_id, root_name, duration_ns, span_count, error_count FROM traces FINAL
       WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)}`,
    { project: projectId, ids },
  )
}
