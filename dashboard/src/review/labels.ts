import { createHash } from 'node:crypto'
import { insertFeedbackRows, readAnnotationRows, readTraceAnnotations, type Storage } from '@sieve/core'
import { ANNOTATOR_SOURCE, labelsFromAnnotations, WITHDRAWN_SOURCE } from '@sieve/review'
import type { LabelBody, TraceAction } from './params.js'

/**
 * One feedback id per trace, rubric, dimension and reviewer: labelling again replaces the label,
 * and withdrawing writes over it (feedback is a ReplacingMergeTree on this id).
 */
const labelId = (rubric: string, dimension: string, reviewer: string) =>
  `review:${rubric}:${dimension}:${createHash('sha256').update(reviewer).digest('hex').slice(0, 16)}`

/**
 * A reviewer's levels as feedback rows (source 'annotator', attributes rubric and dimension, the
 * level as score, the reviewer as user_id, the note as comment): what `sieve judge calibrate
 * --from-annotations` and the recalibration read. One insert: all dimensions or none.
 */
export async function storeLabels(client: Storage, projectId: string, body: LabelBody): Promise<number> {
  const entries = Object.entries(body.labels)
  await insertFeedbackRows(
    client,
    projectId,
    entries.map(([dimension, level]) => ({
      feedbackId: labelId(body.rubric, dimension, body.reviewer),
      traceId: body.traceId,
      score: level,
      source: ANNOTATOR_SOURCE,
      userId: body.reviewer,
      ...(body.note ? { comment: body.note } : {}),
      attributes: { rubric: body.rubric, dimension },
    })),
  )
  return entries.length
}

/** Every label of a trace for a rubric, per reviewer (dimension → level). */
export async function labelsOf(
  client: Storage,
  projectId: string,
  rubricId: string,
  traceId: string,
): Promise<Map<string, { labels: Record<string, number>; note: string }>> {
  const found = await readTraceAnnotations(client, projectId, rubricId, traceId, ANNOTATOR_SOURCE)
  const byReviewer = new Map<string, { labels: Record<string, number>; note: string }>()
  for (const r of found) {
    const entry = byReviewer.get(r.user_id) ?? { labels: {}, note: '' }
    entry.labels[r.dimension] = Number(r.score)
    entry.note ||= r.comment
    byReviewer.set(r.user_id, entry)
  }
  return byReviewer
}

/** Withdraws this reviewer's labels of the trace (`u`): rows that replace them under the same ids. */
export async function withdrawLabels(client: Storage, projectId: string, action: TraceAction): Promise<number> {
  const mine = (await labelsOf(client, projectId, action.rubric, action.traceId)).get(action.reviewer)
  const dimensions = Object.keys(mine?.labels ?? {})
  if (!dimensions.length) return 0
  await insertFeedbackRows(
    client,
    projectId,
    dimensions.map((dimension) => ({
      feedbackId: labelId(action.rubric, dimension, action.reviewer),
      traceId: action.traceId,
      score: mine!.labels[dimension]!,
      source: WITHDRAWN_SOURCE,
      userId: action.reviewer,
      attributes: { rubric: action.rubric, dimension },
    })),
  )
  return dimensions.length
}

/**
 * A project's labels as the JSONL `sieve judge calibrate --labels` takes: one line per trace and
 * rubric, the first labeller's levels and a second labeller's, the project named on each line.
 */
export async function labelsJsonl(client: Storage, projectId: string, rubricId: string | undefined): Promise<string> {
  const found = await readAnnotationRows(client, projectId, rubricId ?? '', ANNOTATOR_SOURCE)
  // Only what the command takes: whole levels, as the review page writes them.
  const labels = labelsFromAnnotations(found.filter((r) => Number.isInteger(Number(r.score))).map((r) => ({ ...r, score: Number(r.score) })))
  return labels.map((l) => `${JSON.stringify(l)}\n`).join('')
}
