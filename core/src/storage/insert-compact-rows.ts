import type { ClickHouseSettings } from '@clickhouse/client'
import { TimeSlice } from '../time-slice.js'
import { quoteIdentifier } from './quote.js'
import type { Storage } from './storage.js'

/** Characters of JSON lines handed on at a time: a few dozen rows. */
const PIECE_CHARS = 64 * 1024

/** `items` as JSON lines (what `toValue` makes of each), encoded in time slices and handed to `take` a piece at a time. */
async function eachJsonLinesPiece<T>(items: readonly T[], toValue: (item: T) => unknown, take: (piece: string) => void): Promise<void> {
  let piece = ''
  const slice = new TimeSlice()
  for (const item of items) {
    piece += `${JSON.stringify(toValue(item))}\n`
    if (piece.length >= PIECE_CHARS) {
      take(piece)
      piece = ''
    }
    await slice.yield()
  }
  if (piece !== '') take(piece)
}

/** `items` as JSON lines, one string. */
async function jsonLines<T>(items: readonly T[], toValue: (item: T) => unknown): Promise<string> {
  const pieces: string[] = []
  await eachJsonLinesPiece(items, toValue, (piece) => pieces.push(piece))
  return pieces.join('')
}

/**
 * `items` as JSON lines, UTF-8 in one Buffer, never one string: a span insert's payload as a string
 * (10-40 MB for 8,192 spans, twice that once one character is outside Latin-1) sat in V8's heap until
 * the insert was done, and was then copied into a Buffer all the same. Encoded a piece at a time it
 * takes about 18% less CPU (8,192 spans: 44-46 ms against 52-60); each row's own JSON is still
 * allocated, the larger part of what encoding allocates.
 */
export async function jsonLinesBuffer<T>(items: readonly T[], toValue: (item: T) => unknown): Promise<Buffer> {
  const pieces: Buffer[] = []
  await eachJsonLinesPiece(items, toValue, (piece) => pieces.push(Buffer.from(piece)))
  return Buffer.concat(pieces)
}

/**
 * Appends `items`, each made a row by `toValues` (its values in `columns` order), to `table` as one
 * `INSERT ... FORMAT JSONCompactEachRow` statement: on the embedded engine the statements'
 * connection, on a server one HTTP request, the route of the client's `insert`. The rows are encoded
 * here, in time slices: the client encodes an array in one synchronous pass, and a score write of
 * 20,000 rows was a main-thread stall of its own under overload. No column name is repeated in
 * every row: the engine parses a score write in about a sixth less time (`bench:pipeline`).
 */
export async function insertCompactRows<T>(
  storage: Pick<Storage, 'command'>,
  table: string,
  columns: readonly string[],
  items: readonly T[],
  toValues: (item: T) => unknown[],
  settings?: ClickHouseSettings,
): Promise<void> {
  if (items.length === 0) return
  const payload = await jsonLines(items, toValues)
  const names = columns.map(quoteIdentifier).join(', ')
  await storage.command({ query: `INSERT INTO ${quoteIdentifier(table)} (${names}) FORMAT JSONCompactEachRow\n${payload}`, clickhouse_settings: settings })
}
