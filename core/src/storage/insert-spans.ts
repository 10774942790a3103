import { UnprocessableSpansError } from '../queue.js'
import type { Span } from '../span.js'
import { TimeSlice } from '../time-slice.js'
import { SPAN_COLUMNS, SpanRowError, spanToRow, type SpanRowValues } from './span-row.js'
import type { Storage } from './storage.js'

/**
 * Collapsing re-delivered spans is left to merges and FINAL reads; collapsing them again inside
 * each inserted block (optimize_on_insert) measured a third of the insert time.
 */
const INSERT_SETTINGS = { optimize_on_insert: 0 } as const

/**
 * Writes spans into `spans` as one insert. Of the formats chDB's raw insert takes (text only),
 * the engine parses and stores JSONCompactEachRow, TabSeparated and CSV about alike and
 * JSON.stringify serializes a row as fast as any (`npm run bench:insert`), so rows go as arrays
 * without repeated column names (`Storage.insertRows`).
 */
export async function insertSpans(storage: Storage, spans: readonly Span[]): Promise<void> {
  if (spans.length === 0) return
  await storage.insertRows('spans', SPAN_COLUMNS, await rowsOf(spans), INSERT_SETTINGS)
}

/**
 * The insert rows. A span whose row cannot be built (a value no column takes, nesting too deep
 * for JSON) can never be stored: that is UnprocessableSpansError, like a row the engine refuses.
 */
async function rowsOf(spans: readonly Span[]): Promise<SpanRowValues[]> {
  const rows: SpanRowValues[] = []
  // A batch of 8,192 spans is a few hundred milliseconds of work under load: built in slices.
  const slice = new TimeSlice()
  try {
    for (const span of spans) {
      rows.push(spanToRow(span))
      await slice.yield()
    }
    return rows
  } catch (err) {
    const message = (err as Error).message
    // SpanRowError names a column and its range; anything else (JSON.stringify's errors) may quote keys.
    const reason = err instanceof SpanRowError ? `its row cannot be built: ${message}` : 'its row cannot be built'
    throw new UnprocessableSpansError(`cannot build the row of a span: ${message}`, reason)
  }
}
