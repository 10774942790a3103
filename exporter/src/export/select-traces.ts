import type { ClickHouseClient } from '@clickhouse/client'
import type { StoredScore } from './build-example.js'

/** Which traces to export; with neither `score` nor `failed`, any trace with a failed check. */
export interface Selection {
  projectId: string
  /** Scorer name whose value must be below `below` (a judge rubric or a check). */
  score?: string
  below?: number
  /** Check that must have failed. */
  failed?: string
  sinceUnixNano: string
  service?: string
  limit: number
  /** Only these traces (the dashboard's "export to dataset" selection); all when absent. */
  traceIds?: string[]
  /** Traces already exported into this dataset file are left out. */
  datasetPath: string
}

export interface Candidate {
  traceId: string
  scores: StoredScore[]
}

/** Low-scoring or failing traces, newest first, each with every score it has, not yet in the dataset. */
export async function selectTraces(client: ClickHouseClient, s: Selection): Promise<Candidate[]> {
  const result = await client.query({
    query: `SELECT trace_id AS traceId,
        groupArray(tuple(scorer_name, kind, value, passed)) AS scores
      FROM scores FINAL
      WHERE project_id = {projectId:String}
        AND error = ''
        AND trace_start_time >= fromUnixTimestamp64Nano({since:Int64}, 'UTC')
        AND ({service:String} = '' OR service_name = {service:String})
        AND (empty({ids:Array(String)}) OR trace_id IN {ids:Array(String)})
        AND trace_id NOT IN (SELECT trace_id FROM exports FINAL WHERE project_id = {projectId:String} AND dataset_path = {path:String})
      GROUP BY trace_id
      HAVING if({score:String} = '', 1, countIf(scorer_name = {score:String} AND value < {below:Float64}) > 0)
        AND if({failed:String} = '', 1, countIf(scorer_name = {failed:String} AND passed = 0) > 0)
        AND if({score:String} = '' AND {failed:String} = '', countIf(passed = 0) > 0, 1)
      ORDER BY max(trace_start_time) DESC, trace_id
      LIMIT {limit:UInt32}`,
    query_params: {
      projectId: s.projectId,
      since: s.sinceUnixNano,
      service: s.service ?? '',
      score: s.score ?? '',
      below: s.below ?? 0,
      failed: s.failed ?? '',
      path: s.datasetPath,
      limit: s.limit,
      ids: s.traceIds ?? [],
    },
    format: 'JSONEachRow',
  })
  const rows = await result.json<{ traceId: string; scores: [string, string, number, number][] }>()
  return rows.map((r) => ({
    traceId: r.traceId,
    scores: r.scores.map(([name, kind, value, passed]) => ({ name, kind, value: Number(value), passed: Number(passed) === 1 })),
  }))
}
