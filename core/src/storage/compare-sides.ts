import { readRows } from './read-rows.js'
import type { FilteredRange } from './sql-filter.js'
import type { Storage } from './storage.js'

/** Two values of one dimension column (`column`: a version, a model...) read side by side over a range. */
export interface ComparedSides extends FilteredRange {
  column: string
  a: string
  b: string
}

function sideParams(r: ComparedSides) {
  const { filter: f, column } = r
  const params = { project: r.projectId, a: r.a, b: r.b, from: r.from, to: r.to, ...f.params }
  return { f, column, params }
}

/** Per kind, check and side: scores, passes and value sums from the 5-minute rollup. */
export async function readCompareRollup(client: Storage, r: ComparedSides) {
  const { f, column, params } = sideParams(r)
  return readRows<{ kind: string; check: string; side: string; scored: number; passed: number; value_sum: number }>(
    client,
    `SELECT kind, scorer_name AS check, ${column} AS side, sum(scored) AS scored, sum(passed) AS passed, sum(value_sum) AS value_sum
       FROM quality_5m
       WHERE project_id = {project:String} AND bucket >= toStartOfFiveMinutes({from:DateTime64(3)}) AND bucket < {to:DateTime64(3)}
         AND ${column} IN ({a:String}, {b:String})${f.sql}
       GROUP BY kind, check, side
       HAVING scored != 0`,
    params,
  )
}

/** Per side, the traces that started in the range (`traces`). */
export async function readCompareTraces(client: Storage, r: ComparedSides) {
  const { f, column, params } = sideParams(r)
  return readRows<{ side: string; traces: number }>(
    client,
    `SELECT ${column} AS side, count() AS traces FROM traces FINAL
       WHERE project_id = {project:String} AND start_time >= {from:DateTime64(3)} AND start_time < {to:DateTime64(3)}
         AND ${column} IN ({a:String}, {b:String})${f.sql}
       GROUP BY side`,
    params,
  )
}
