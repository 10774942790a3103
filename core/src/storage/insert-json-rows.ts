import type { ClickHouseSettings } from '@clickhouse/client'
import { TimeSlice } from '../time-slice.js'
import { quoteIdentifier } from './quote.js'
import type { Storage } from './storage.js'

/**
 * Appends `items`, each made a row by `toRow` (an object by column name), to `table` as one
 * `INSERT ... FORMAT JSONEachRow` statement: on the embedded engine the statements' connection, on
 * a server one HTTP request, the same route as the client's `insert`. What differs is that the rows
 * are encoded here in time slices: the client encodes an array in one synchronous pass, and a score
 * write of 20,000 rows was a main-thread stall of its own under overload.
 */
export async function insertJsonRows<T>(
  storage: Pick<Storage, 'command'>,
  table: string,
  items: readonly T[],
  toRow: (item: T) => object,
  settings?: ClickHouseSettings,
): Promise<void> {
  if (items.length === 0) return
  const payload = await jsonLines(items, toRow)
  await storage.command({ query: `INSERT INTO ${quoteIdentifier(table)} FORMAT JSONEachRow\n${payload}`, clickhouse_settings: settings })
}

/** `items` as JSON lines (what `toValue` makes of each), encoded in time slices. */
export async function jsonLines<T>(items: readonly T[], toValue: (item: T) => unknown): Promise<string> {
  let lines = ''
  const slice = new TimeSlice()
  for (const item of items) {
    lines += `${JSON.stringify(toValue(item))}\n`
    await slice.yield()
  }
  return lines
}
