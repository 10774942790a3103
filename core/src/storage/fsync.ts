import { quoteIdentifier } from './quote.js'
import type { Storage } from './storage.js'

/**
 * `SIEVE_FSYNC`: whether the embedded engine fsyncs what an insert writes before the insert
 * returns. By default (as ClickHouse ships) it does not: a part is written and renamed into place
 * but left in the page cache, so an acknowledged span survives the process crashing (kill -9) but
 * not the machine losing power. On, each insert fsyncs its part's files and directory, and so
 * does each merge: chDB deletes the parts a merge replaced at once (`old_parts_lifetime` is 0
 * there, 480 s on a server), so a merged part left in the page cache could lose rows that had
 * been fsynced when they were inserted.
 *
 * These are MergeTree *table* settings: an insert or session that names them fails with
 * UNKNOWN_SETTING, and chDB's connections take no server configuration. So they are set on the
 * tables, with ALTER TABLE ... MODIFY SETTING, where they take effect at once for every
 * connection and are kept in the table's metadata; that is also why off must RESET them, or
 * one start with SIEVE_FSYNC=1 would leave them on for good. Every MergeTree table of the
 * database gets them, derived ones too: recovery after a crash trusts `progress` only as far as
 * the rollup and scores it vouches for, so those must be on disk before it.
 */
/** Each set to 1; min_rows_to_fsync_after_merge = 1: every merged part that holds a row, so all. */
const SETTINGS = ['fsync_after_insert', 'fsync_part_directory', 'min_rows_to_fsync_after_merge'] as const

/**
 * Brings every MergeTree table of the current database in line with the client's SIEVE_FSYNC,
 * altering only those that differ. Returns the tables it altered. A server, whose own
 * configuration decides, is left alone.
 */
export async function applyFsync(client: Storage): Promise<string[]> {
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
    const set = SETTINGS.filter((s) => new RegExp(`\\b${s} = (1|true)\\b`).test(engine_full))
    if (on ? set.length === SETTINGS.length : set.length === 0) continue
    await client.command({
      query: on
        ? `ALTER TABLE ${quoteIdentifier(name)} MODIFY SETTING ${SETTINGS.map((s) => `${s} = 1`).join(', ')}`
        : `ALTER TABLE ${quoteIdentifier(name)} RESET SETTING ${SETTINGS.join(', ')}`,
    })
    altered.push(name)
  }
  return altered
}
