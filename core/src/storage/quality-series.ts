import { readRows } from './read-rows.js'
import type { FilteredRange } from './sql-filter.js'
import type { Storage } from './storage.js'

/** A range read in buckets of `step` seconds (`from` the first bucket's start). */
export interface BucketedRange extends FilteredRange {
  step: number
}

const bucketOf = (column: string) => `toUnixTimestamp(toStartOfInterval(${column}, INTERVAL {step:UInt32} SECOND))`

/** The range's conditions on a time column, and the parameters every bucketed read binds. */
function bucketed(r: BucketedRange) {
  const f = r.filter
  const params = { project: r.projectId, step: r.step, from: r.from, to: r.to, ...f.params }
  const range = (column: string) => `project_id = {project:String} AND ${column} >= {from:DateTime64(3)} AND ${column} < {to:DateTime64(3)}${f.sql}`
  return { params, range }
}

/**
 * Per bucket, kind, check and `group` (a column of the rollup, or `''`): scores, passes, value sums,
 * judge errors and cost from the 5-minute or, for whole hours, the hourly rollup (the latest score
 * of each trace and check: a re-score replaces, see migrations/0007); only `kind` and `check` when given.
 */
export async function readQualityRollup(client: Storage, r: BucketedRange, group: string, kind?: string, check?: string) {
  const { params, range } = bucketed(r)
  const scoreFilter = `${kind ? ' AND kind = {kind:String}' : ''}${check ? ' AND scorer_name = {check:String}' : ''}`
  return readRows<{ t: number; kind: string; check: string; grp: string; scored: number; passed: number; value_sum: number; errors: number; cost: number }>(
    client,
    `SELECT ${bucketOf('bucket')} AS t, kind, scorer_name AS check, ${group} AS grp,
              sum(scored) AS scored, sum(passed) AS passed, sum(value_sum) AS value_sum, sum(errors) AS errors, sum(cost_usd) AS cost
       FROM ${r.step % 3600 === 0 ? 'quality_1h' : 'quality_5m'} WHERE ${range('bucket')}${scoreFilter}
       GROUP BY t, kind, check, grp
       HAVING scored != 0 OR errors != 0`,
    { ...params, kind: kind ?? '', check: check ?? '' },
  )
}

/** Per bucket, the traces that started in it (`traces`), those with errors, and their tokens. */
export async function readTraceBuckets(client: Storage, r: BucketedRange) {
  const { params, range } = bucketed(r)
  return readRows<{ t: number; traces: number; error_traces: number; input_tokens: number; output_tokens: number }>(
    client,
    `SELECT ${bucketOf('start_time')} AS t, count() AS traces, countIf(error_count > 0) AS error_traces,
              sum(input_tokens) AS input_tokens, sum(output_tokens) AS output_tokens
       FROM traces FINAL WHERE ${range('start_time')}
       GROUP BY t`,
    params,
  )
}

/** Per bucket, the traces with judge scores in effect. */
export async function readJudgedBuckets(client: Storage, r: BucketedRange) {
  // Only rows with judge changes are grouped (one trace in ten is judged), and a trace counts when
  // its judge scores in effect add up to more than none: a replaced judgment nets out.
  const { params, range } = bucketed(r)
  return readRows<{ t: number; judged: number }>(
    client,
    `SELECT ${bucketOf('trace_start_time')} AS t, count() AS judged
       FROM (SELECT trace_start_time, trace_id FROM trace_quality WHERE ${range('trace_start_time')} AND judge_scores != 0
             GROUP BY trace_start_time, trace_id HAVING sum(judge_scores) > 0)
       GROUP BY t`,
    params,
  )
}
