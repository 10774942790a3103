import { type FilteredRange, readRows, type Storage } from '@sieve/core'

/** The scorecard rows of a range (kind 'scorecard', by trace start), as conditions and parameters. */
function scorecardRange(r: FilteredRange) {
  const { projectId, filter: f } = r
  const where = `project_id = {project:String} AND kind = 'scorecard' AND trace_start_time >= {from:DateTime64(3)} AND trace_start_time < {to:DateTime64(3)}${f.sql}`
  const params = { project: projectId, from: r.from, to: r.to, ...f.params }
  return { where, params }
}

/** How many traces of the range have a scorecard verdict, and how many passed, from each trace's latest (FINAL). */
export async function readScorecardTotals(client: Storage, r: FilteredRange): Promise<{ traces: number; passed: number }[]> {
  const { where, params } = scorecardRange(r)
  return readRows<{ traces: number; passed: number }>(
    client,
    `SELECT count() AS traces, countIf(passed = 1) AS passed FROM scores FINAL WHERE ${where}`,
    params,
  )
}

/** The hard gates that failed traces of the range, most often first (50 at most), each with the kind of item it reads. */
export async function readFailedGates(client: Storage, r: FilteredRange): Promise<{ name: string; failed: number; item_kind: 'deterministic' | 'judge' }[]> {
  const { where, params } = scorecardRange(r)
  return readRows<{ name: string; failed: number; item_kind: 'deterministic' | 'judge' }>(
    client,
    `SELECT gate AS name, count() AS failed,
         any(JSONExtractString(arrayFirst(i -> JSONExtractString(i, 'name') = gate, JSONExtractArrayRaw(detail, 'items')), 'kind')) AS item_kind
       FROM scores FINAL ARRAY JOIN JSONExtract(detail, 'failedGates', 'Array(String)') AS gate
       WHERE ${where} GROUP BY gate ORDER BY failed DESC, gate LIMIT 50`,
    params,
  )
}
