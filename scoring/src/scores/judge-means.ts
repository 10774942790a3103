import { readRows, type Storage } from '@sieve/core'

/**
 * Per trace, the mean of its rubric scores and of its dimension scores in effect. A judge row named
 * `<rubric>` is a rubric's weighted score, `<rubric>.<dimension>` one dimension's (rubric ids are
 * kebab-case, never dotted: judge/src/rubric.ts). In effect, as the rollups count: the
 * latest row by created_at per (trace, check, span) whatever its version; a latest row that is a
 * judge error is no score. argMax over every stored row picks it, replaced copies included, so the
 * read needs no FINAL, which would merge every granule the candidates touch: on 10 million spans
 * the candidates' ids hit most granules of a day, and FINAL took 0.7 s of the list's 1 s.
 */
export async function readJudgeMeans(
  client: Storage,
  params: { project: string; from: string; to: string; ids: string[] },
): Promise<Map<string, { rubricMean: number | null; dimensionMean: number | null; names: string[] }>> {
  const found = await readRows<{ trace_id: string; rubrics: number; rubric_sum: number; dimensions: number; dimension_sum: number; names: string[] }>(
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
