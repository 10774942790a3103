import { readRows, type Storage } from '@sieve/core'
import { ANNOTATOR_SOURCE } from './calibration/annotations.js'

/** A trace of a queue as the review page lists it; never the judge's verdict (the dashboard's review/verdict.ts). */
export interface QueueItem {
  traceId: string
  reason: string
  /** The dimensions that made its rule take it. */
  dimensions: string[]
  addedBy: string
  addedAt: string
  /** People who labelled it so far. */
  labellers: number
  /** This reviewer labelled it. */
  labelledByYou: boolean
  /** This reviewer passed over it (`n`). */
  skippedByYou: boolean
}

interface ItemRow {
  trace_id: string
  reason: string
  dimensions: string[]
  added_by: string
  added_at: string
  labellers: number
  mine: number
  skipped: number
  remaining: number
}

/**
 * A queue's items with their state for one reviewer: the earliest row per trace (a trace is one
 * item however often it was written), who labelled it (feedback, source 'annotator') and whether
 * this reviewer skipped it. Every table is read within the project and the rubric's queue.
 */
const ITEMS = `
  SELECT q.trace_id AS trace_id, q.reason AS reason, q.dimensions AS dimensions, q.added_by AS added_by, q.first_added AS first_added, toString(q.first_added) AS added_at,
         l.labellers AS labellers, l.mine AS mine, s.skipped AS skipped
  FROM (
    SELECT trace_id, argMin(reason, added_at) AS reason, argMin(dimensions, added_at) AS dimensions,
           argMin(added_by, added_at) AS added_by, min(added_at) AS first_added
    FROM review_queue WHERE project_id = {project:String} AND rubric_id = {rubric:String}
    GROUP BY trace_id
  ) AS q
  LEFT JOIN (
    SELECT trace_id, uniqExact(user_id) AS labellers, max(user_id = {reviewer:String}) AS mine
    FROM feedback FINAL
    WHERE project_id = {project:String} AND source = {source:String} AND attributes['rubric'] = {rubric:String}
    GROUP BY trace_id
  ) AS l USING (trace_id)
  LEFT JOIN (
    SELECT trace_id, argMax(skipped, at) AS skipped FROM review_skips FINAL
    WHERE project_id = {project:String} AND rubric_id = {rubric:String} AND reviewer = {reviewer:String}
    GROUP BY trace_id
  ) AS s USING (trace_id)`

/**
 * Waiting for this reviewer: not labelled or skipped by them, and labelled by nobody yet, or by one
 * other person when the trace is among the `secondLabeller` share (a hash of its id, so every
 * reviewer is offered the same traces for a second label).
 */
const WAITING = `mine = 0 AND skipped = 0
  AND (labellers = 0 OR (labellers = 1 AND cityHash64('second-labeller', trace_id) % 1000000 < {second:UInt32}))`

const item = (r: ItemRow): QueueItem => ({
  traceId: r.trace_id,
  reason: r.reason,
  dimensions: r.dimensions,
  addedBy: r.added_by,
  addedAt: `${r.added_at.replace(' ', 'T')}Z`,
  labellers: Number(r.labellers),
  labelledByYou: Number(r.mine) === 1,
  skippedByYou: Number(r.skipped) === 1,
})

export interface QueueScope {
  projectId: string
  rubricId: string
  reviewer: string
  /** The rubric's rules in effect: the share of labelled traces offered to a second reviewer. */
  secondLabeller: number
}

const params = (s: QueueScope) => ({
  project: s.projectId,
  rubric: s.rubricId,
  reviewer: s.reviewer,
  source: ANNOTATOR_SOURCE,
  second: Math.round(s.secondLabeller * 1_000_000),
})

/** The oldest trace waiting for this reviewer, and how many wait (it included). */
export async function nextItem(client: Storage, scope: QueueScope): Promise<{ item: QueueItem | undefined; remaining: number }> {
  const [row] = await readRows<ItemRow>(
    client,
    `SELECT *, count() OVER () AS remaining FROM (${ITEMS}) WHERE ${WAITING} ORDER BY first_added, trace_id LIMIT 1`,
    params(scope),
  )
  return { item: row && item(row), remaining: Number(row?.remaining ?? 0) }
}

/** One trace of the queue with its state for this reviewer; undefined when it is not in the queue. */
export async function queueItem(client: Storage, scope: QueueScope, traceId: string): Promise<QueueItem | undefined> {
  const [row] = await readRows<ItemRow>(client, `SELECT * FROM (${ITEMS}) WHERE trace_id = {trace:String}`, { ...params(scope), trace: traceId })
  return row && item(row)
}

/** A queue's size: its traces, those nobody labelled, those waiting for this reviewer. */
export async function queueCounts(client: Storage, scope: QueueScope): Promise<{ items: number; open: number; waiting: number }> {
  const [row] = await readRows<{ items: number; open: number; waiting: number }>(
    client,
    `SELECT count() AS items, countIf(labellers = 0) AS open, countIf(${WAITING}) AS waiting FROM (${ITEMS})`,
    params(scope),
  )
  return { items: Number(row?.items ?? 0), open: Number(row?.open ?? 0), waiting: Number(row?.waiting ?? 0) }
}
