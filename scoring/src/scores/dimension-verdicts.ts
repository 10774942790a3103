import type { Storage } from '@sieve/core'

/** A judge's stored verdict on one dimension of a rubric for a trace, with the configuration that gave it. */
export interface DimensionVerdictRow {
  trace_id: string
  scorer_name: string
  rubric_version: string
  prompt_version: string
  judge_model: string
  level: number | null
  at: number
}

/** Trace ids per statement: keeps each query well under ClickHouse's max_query_size. */
const TRACES_PER_QUERY = 2000

/** The judge's stored dimension verdicts on the traces, every rubric and prompt version of them. */
export async function readDimensionVerdicts(
  storage: Storage,
  projectId: string,
  rubricId: string,
  traceIds: readonly string[],
): Promise<DimensionVerdictRow[]> {
  const rows: DimensionVerdictRow[] = []
  for (let i = 0; i < traceIds.length; i += TRACES_PER_QUERY) {
    const result = await storage.query({
      query: `SELECT trace_id, scorer_name, rubric_version, prompt_version, judge_model,
                JSONExtract(detail, 'level', 'Nullable(Int64)') AS level, toUnixTimestamp64Milli(created_at) AS at
              FROM scores FINAL
              WHERE project_id = {project:String} AND trace_id IN {ids:Array(String)} AND kind = 'judge'
                AND rubric_id = {rubric:String} AND scorer_name != {rubric:String}`,
      query_params: { project: projectId, rubric: rubricId, ids: traceIds.slice(i, i + TRACES_PER_QUERY) },
      format: 'JSONEachRow',
      clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
    })
    rows.push(...(await result.json<DimensionVerdictRow>()))
  }
  return rows
}
