import { labelledTraceCounts, type Storage } from '@sieve/core'
import { ANNOTATOR_SOURCE } from './calibration/annotations.js'
import type { QueueReason } from './config.js'

/** A trace put in a project's queue for one rubric. */
export interface QueueEntry {
  projectId: string
  rubricId: string
  traceId: string
  reason: QueueReason
  rulesVersion: number
  dimensions: string[]
  /** The reviewer name of a manual add; '' for a rule. */
  addedBy: string
}

/** Trace ids per statement: keeps each query well under ClickHouse's max_query_size. */
const TRACES_PER_QUERY = 2000

/** Which of `traceIds` (lower-case) are in the project's queue for the rubric already. */
export async function queuedTraces(storage: Storage, projectId: string, rubricId: string, traceIds: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>()
  for (let i = 0; i < traceIds.length; i += TRACES_PER_QUERY) {
    const result = await storage.query({
      query: `SELECT DISTINCT trace_id FROM review_queue
              WHERE project_id = {project:String} AND rubric_id = {rubric:String} AND trace_id IN {ids:Array(String)}`,
      query_params: { project: projectId, rubric: rubricId, ids: traceIds.slice(i, i + TRACES_PER_QUERY) },
      format: 'JSONEachRow',
    })
    for (const row of await result.json<{ trace_id: string }>()) found.add(row.trace_id)
  }
  return found
}

/**
 * Puts each entry's trace in its queue unless it is there already (a trace enters a queue once),
 * and returns the entries added. Two writers adding one trace at the same moment may both write it;
 * every reader takes a trace's earliest row, so it stays one item.
 */
export async function enqueue(storage: Storage, entries: readonly QueueEntry[]): Promise<QueueEntry[]> {
  const added: QueueEntry[] = []
  const byQueue = new Map<string, QueueEntry[]>()
  for (const e of entries) {
    const key = `${e.projectId}\u0000${e.rubricId}`
    byQueue.set(key, [...(byQueue.get(key) ?? []), { ...e, traceId: e.traceId.toLowerCase() }])
  }
  for (const queue of byQueue.values()) {
    const there = await queuedTraces(
      storage,
      queue[0]!.projectId,
      queue[0]!.rubricId,
      queue.map((e) => e.traceId),
    )
    const fresh = [...new Map(queue.filter((e) => !there.has(e.traceId)).map((e) => [e.traceId, e])).values()]
    if (!fresh.length) continue
    await storage.insert({
      table: 'review_queue',
      format: 'JSONEachRow',
      values: fresh.map((e) => ({
        project_id: e.projectId,
        rubric_id: e.rubricId,
        trace_id: e.traceId,
        reason: e.reason,
        rules_version: e.rulesVersion,
        dimensions: e.dimensions,
        added_by: e.addedBy,
      })),
    })
    added.push(...fresh)
  }
  return added
}

/** Per rubric, the traces of a project's queue that wait for their first label. */
export async function openItems(storage: Storage, projectId: string): Promise<Map<string, number>> {
  const result = await storage.query({
    query: `SELECT q.rubric_id AS rubric_id, count() AS open
            FROM (SELECT DISTINCT rubric_id, trace_id FROM review_queue WHERE project_id = {project:String}) AS q
            LEFT ANTI JOIN (SELECT DISTINCT attributes['rubric'] AS rubric_id, trace_id FROM feedback FINAL
                            WHERE project_id = {project:String} AND source = {source:String}) AS l
            USING (rubric_id, trace_id)
            GROUP BY rubric_id`,
    query_params: { project: projectId, source: ANNOTATOR_SOURCE },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return new Map((await result.json<{ rubric_id: string; open: number }>()).map((r) => [r.rubric_id, Number(r.open)]))
}

/** Per `<rubric>.<dimension>`, the traces of a project a person labelled. */
export async function labelledCounts(storage: Storage, projectId: string): Promise<Map<string, number>> {
  return labelledTraceCounts(storage, projectId, ANNOTATOR_SOURCE)
}
