import { type AnnotationRow, readAllAnnotations, readRubricAnnotations, type Storage } from '@sieve/core'
import { JudgeError } from '@sieve/llm'
import { labelSchema, type ProjectLabel } from './labels.js'

/** The feedback source of a person's label of a rubric dimension (the review page writes it too). */
export const ANNOTATOR_SOURCE = 'annotator'
/**
 * The source of a row that withdraws a label (`u` on the review page): written with the label's
 * feedback id, it replaces the label in `feedback FINAL`, so no reader of annotations sees it.
 */
export const WITHDRAWN_SOURCE = 'annotator_withdrawn'

/**
 * Human labels kept as feedback (core's `AnnotationRow`): per trace and dimension, the first
 * annotator (by time) is the labeller, a second one the second labeller.
 */
export function labelsFromAnnotations(rows: readonly AnnotationRow[]): ProjectLabel[] {
  const byTrace = new Map<
    string,
    { projectId: string; traceId: string; rubric: string; first: Record<string, number>; second: Record<string, number>; who: Map<string, string> }
  >()
  for (const row of rows) {
    if (!Number.isInteger(row.score))
      throw new JudgeError('LABELS_INVALID', `annotation ${row.feedback_id} on trace ${row.trace_id}: score ${row.score} is not a rubric level (an integer)`)
    const key = `${row.project_id}\u0000${row.trace_id}\u0000${row.rubric}`
    let entry = byTrace.get(key)
    if (!entry) byTrace.set(key, (entry = { projectId: row.project_id, traceId: row.trace_id, rubric: row.rubric, first: {}, second: {}, who: new Map() }))
    const firstBy = entry.who.get(row.dimension)
    if (firstBy === undefined) {
      entry.who.set(row.dimension, row.user_id)
      entry.first[row.dimension] = row.score
    } else if (firstBy !== row.user_id && entry.second[row.dimension] === undefined) {
      entry.second[row.dimension] = row.score
    }
  }
  return [...byTrace.values()].map((e) => ({
    ...labelSchema.parse({
      traceId: e.traceId,
      rubric: e.rubric,
      labels: e.first,
      ...(Object.keys(e.second).length ? { secondLabels: e.second } : {}),
    }),
    projectId: e.projectId,
  }))
}

/** One project's annotations of one rubric, oldest first, as labelsFromAnnotations takes them. */
export async function readProjectAnnotations(storage: Storage, projectId: string, rubricId: string): Promise<AnnotationRow[]> {
  return readRubricAnnotations(storage, projectId, rubricId, ANNOTATOR_SOURCE)
}

/** Every annotation in storage, oldest first, as labels. */
export async function readAnnotationLabels(storage: Storage): Promise<ProjectLabel[]> {
  return labelsFromAnnotations(await readAllAnnotations(storage))
}
