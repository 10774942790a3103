import { readRows } from './read-rows.js'
import type { Storage } from './storage.js'

/**
 * A person's label of a rubric dimension, kept as a `feedback` row: the source names it a label
 * (the review library's `ANNOTATOR_SOURCE`), its attributes name the `rubric` and `dimension`,
 * and its score is the level.
 */
export interface AnnotationRow {
  project_id: string
  trace_id: string
  feedback_id: string
  rubric: string
  dimension: string
  score: number
  user_id: string
}

/** One project's annotations of one rubric, oldest first. */
export async function readRubricAnnotations(storage: Storage, projectId: string, rubricId: string, source: string): Promise<AnnotationRow[]> {
  const result = await storage.query({
    query: `SELECT project_id, trace_id, feedback_id, attributes['rubric'] AS rubric, attributes['dimension'] AS dimension, score, user_id
            FROM feedback FINAL
            WHERE project_id = {project:String} AND source = {source:String} AND attributes['rubric'] = {rubric:String} AND attributes['dimension'] != ''
            ORDER BY created_at, feedback_id`,
    query_params: { project: projectId, rubric: rubricId, source },
    format: 'JSONEachRow',
  })
  return result.json<AnnotationRow>()
}

/** Every annotation in storage (source 'annotator'), oldest first. */
export async function readAllAnnotations(storage: Storage): Promise<AnnotationRow[]> {
  const result = await storage.query({
    query: `SELECT project_id, trace_id, feedback_id, attributes['rubric'] AS rubric, attributes['dimension'] AS dimension, score, user_id
            FROM feedback FINAL
            WHERE source = 'annotator' AND attributes['rubric'] != '' AND attributes['dimension'] != ''
            ORDER BY created_at, feedback_id`,
    format: 'JSONEachRow',
  })
  return result.json<AnnotationRow>()
}

/** A project's annotations of one rubric, or of every rubric (`rubricId` ''), oldest first, 64-bit numbers as numbers. */
export async function readAnnotationRows(client: Storage, projectId: string, rubricId: string, source: string): Promise<AnnotationRow[]> {
  return readRows<AnnotationRow>(
    client,
    `SELECT project_id, trace_id, feedback_id, attributes['rubric'] AS rubric, attributes['dimension'] AS dimension, score, user_id
     FROM feedback FINAL
     WHERE project_id = {project:String} AND source = {source:String} AND attributes['rubric'] != '' AND attributes['dimension'] != ''
       AND ({rubric:String} = '' OR attributes['rubric'] = {rubric:String})
     ORDER BY created_at, feedback_id`,
    { project: projectId, source, rubric: rubricId },
  )
}

/** One trace's annotations of a rubric, oldest first: who gave which level to which dimension, with their note. */
export async function readTraceAnnotations(
  client: Storage,
  projectId: string,
  rubricId: string,
  traceId: string,
  source: string,
): Promise<{ user_id: string; dimension: string; score: number; comment: string }[]> {
  return readRows<{ user_id: string; dimension: string; score: number; comment: string }>(
    client,
    `SELECT user_id, attributes['dimension'] AS dimension, score, comment FROM feedback FINAL
     WHERE project_id = {project:String} AND trace_id = {trace:String} AND source = {source:String} AND attributes['rubric'] = {rubric:String}
     ORDER BY created_at`,
    { project: projectId, trace: traceId, rubric: rubricId, source },
  )
}

/** Per `<rubric>.<dimension>`, the traces of a project a person labelled. */
export async function labelledTraceCounts(storage: Storage, projectId: string, source: string): Promise<Map<string, number>> {
  const result = await storage.query({
    query: `SELECT concat(attributes['rubric'], '.', attributes['dimension']) AS name, uniqExact(trace_id) AS labelled
            FROM feedback FINAL
            WHERE project_id = {project:String} AND source = {source:String} AND attributes['rubric'] != '' AND attributes['dimension'] != ''
            GROUP BY name`,
    query_params: { project: projectId, source },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return new Map((await result.json<{ name: string; labelled: number }>()).map((r) => [r.name, Number(r.labelled)]))
}
