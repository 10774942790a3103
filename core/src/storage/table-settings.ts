import { quoteIdentifier } from './quote.js'
import type { Storage } from './storage.js'

/*
 * The embedded engine's MergeTree *table* settings. chDB's connections take no server
 * configuration, and an insert or session that names these fails with UNKNOWN_SETTING, so they
 * are set on the tables with ALTER TABLE ... MODIFY SETTING, where they take effect at once for
 * every connection and are kept in the table's metadata. A server is left alone: its own
 * `<merge_tree>` configuration decides.
 *
 * `SIEVE_FSYNC`: whether the embedded engine fsyncs what an insert writes before the insert
 * returns. By default (as ClickHouse ships) it does not: a part is written and renamed into place
 * but left in the page cache, so an acknowledged span survives the process crashing (kill -9) but
 * not the machine losing power. On, each insert fsyncs its part's files and directory, and so
 * does each merge: chDB deletes the parts a merge replaced at once (`old_parts_lifetime` is 0
 * there, 480 s on a server), so a merged part left in the page cache could lose rows that had
 * been fsynced when they were inserted. Off must RESET them, or one start with SIEVE_FSYNC=1
 * would leave them on for good. Every MergeTree table of the database gets them, derived ones
 * too: recovery after a crash trusts `progress` only as far as the rollup and scores it vouches
 * for, so those must be on disk before it.
 *
 * Merge selection for `spans`: the embedded queue inserts each request, or the requests that
 * arrived together, as one part, so with few senders `spans` gets many parts of a few hundred KB.
 * At the default base (5) the engine merged them back into one part almost at once, rewriting
 * the whole young partition every few inserts: with one sender at a time, merges were 40% of
 * `sieve up`'s CPU. At base 20 a merge waits for about 20 parts of a size: merge CPU fell to 40%
 * of what it was with one sender and to 25% with 16 (bench:pipeline), and the part count after a
 * burst stayed 2-5.
 */

/** Each set to 1; min_rows_to_fsync_after_merge = 1: every merged part that holds a row, so all. */
const FSYNC = ['fsync_after_insert', 'fsync_part_directory', 'min_rows_to_fsync_after_merge'] as const

const MERGE_SELECTION: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  spans: { merge_selector_base: 20 },
}

const isSet = (engineFull: string, setting: string, value: number | string): boolean =>
  new RegExp(`\\b${setting} = (${value}${value === 1 ? '|true' : ''})\\b`).test(engineFull)

/**
 * Brings every MergeTree table of the current database in line with the embedded engine's table
 * settings (SIEVE_FSYNC on or off, merge selection), altering only those that differ. Returns the
 * tables it altered. A server is left alone.
 */
export async function applyEmbeddedTableSettings(client: Storage): Promise<string[]> {
  const on = client.fsync
  if (on === undefined) return []
  const tables = await (
    await client.query({
      query: `SELECT name, engine_full FROM system.tables
        WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND NOT is_temporary`,
      format: 'JSONEachRow',
    })
  ).json<{ name: string; engine_full: string }>()
  const altered: string[] = []
  for (const { name, engine_full } of tables) {
    const modify = Object.entries(MERGE_SELECTION[name] ?? {})
      .filter(([s, v]) => !isSet(engine_full, s, v))
      .map(([s, v]) => `${s} = ${v}`)
    const fsyncSet = FSYNC.filter((s) => isSet(engine_full, s, 1))
    if (on && fsyncSet.length < FSYNC.length) modify.push(...FSYNC.map((s) => `${s} = 1`))
    const reset = !on && fsyncSet.length > 0 ? FSYNC : []
    if (modify.length === 0 && reset.length === 0) continue
    if (modify.length) await client.command({ query: `ALTER TABLE ${quoteIdentifier(name)} MODIFY SETTING ${modify.join(', ')}` })
    if (reset.length) await client.command({ query: `ALTER TABLE ${quoteIdentifier(name)} RESET SETTING ${reset.join(', ')}` })
    altered.push(name)
  }
  return altered
}
