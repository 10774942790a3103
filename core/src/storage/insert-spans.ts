import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client'
import { UnprocessableSpansError } from '../queue.js'
import type { Span } from '../span.js'
import { chdbConnectionOf } from './create-storage.js'
import { SPAN_COLUMNS, SpanRowError, spanToRow, type SpanRowValues } from './span-row.js'

/**
 * Collapsing re-delivered spans is left to merges and FINAL reads; collapsing them again inside
 * each inserted block (optimize_on_insert) measured a third of the insert time.
 */
const INSERT_SETTINGS = { optimize_on_insert: 0 } as const

/**
 * Writes spans into `spans` as one insert. Of the formats chDB's raw insert takes (text only),
 * the engine parses and stores JSONCompactEachRow, TabSeparated and CSV about alike and
 * JSON.stringify serializes a row as fast as any (`npm run bench:insert`), so rows go as arrays
 * without repeated column names. On the embedded engine the payload goes to the raw insert on
 * the client's insert connection (see createStorage), which parses it without copying it
 * through JS strings and without waiting for other statements.
 */
export async function insertSpans(client: ClickHouseClient, spans: readonly Span[]): Promise<void> {
  if (spans.length === 0) return
  const rows = rowsOf(spans)
  const chdb = chdbConnectionOf(client)
  if (chdb) {
    let payload = ''
    for (const row of rows) payload += `${JSON.stringify(row)}\n`
    await chdb.chdb.rawInsert({ table: 'spans', columns: SPAN_COLUMNS, format: 'JSONCompactEachRow', values: Buffer.from(payload), settings: INSERT_SETTINGS })
    return
  }
  try {
    await client.insert({ table: 'spans', columns: [...SPAN_COLUMNS], values: rows, format: 'JSONCompactEachRow', clickhouse_settings: INSERT_SETTINGS })
  } catch (err) {
    throw engineWorded(err)
  }
}

/**
 * A server's refusal worded as the embedded engine's (`Code: 469. DB::Exception: ... (VIOLATED_CONSTRAINT)`).
 * Over HTTP the client keeps the code and the error's name apart from the message (`code`, `type`),
 * while what the ingester keeps of a refused span (its dead letter) and logs is the message: without
 * this, a dead letter written on a server would not say which error it was.
 */
function engineWorded(err: unknown): unknown {
  if (!(err instanceof ClickHouseError) || /^Code: \d+\./.test(err.message)) return err
  const worded = new ClickHouseError({ message: `Code: ${err.code}. DB::Exception: ${err.message.trimEnd()} (${err.type})`, code: err.code, type: err.type ?? '' })
  worded.stack = err.stack
  return worded
}

/**
 * The insert rows. A span whose row cannot be built (a value no column takes, nesting too deep
 * for JSON) can never be stored: that is UnprocessableSpansError, like a row the engine refuses.
 */
function rowsOf(spans: readonly Span[]): SpanRowValues[] {
  try {
    return spans.map(spanToRow)
  } catch (err) {
    const message = (err as Error).message
    // SpanRowError names a column and its range; anything else (JSON.stringify's errors) may quote keys.
    const reason = err instanceof SpanRowError ? `its row cannot be built: ${message}` : 'its row cannot be built'
    throw new UnprocessableSpansError(`cannot build the row of a span: ${message}`, reason)
  }
}
