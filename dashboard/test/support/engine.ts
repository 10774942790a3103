import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { migrate } from '@sieve/core'
import { openTestStorage } from '@sieve/testkit/clickhouse-http'

/**
 * One engine under a fresh temporary directory, migrated as `sieve up` does it: embedded, or over
 * HTTP to testkit's stand-in with `SIEVE_TEST_STORAGE=http`. Closing it closes the stand-in too.
 */
export async function openEngine(retentionDays = 3650): Promise<Storage> {
  const path = mkdtempSync(join(tmpdir(), 'sieve-dashboard-'))
  const store = await openTestStorage({ path })
  const { storage } = store
  await migrate(storage, { retentionDays })
  if (store.kind === 'embedded') return storage
  return {
    query: storage.query,
    command: storage.command,
    insert: storage.insert,
    ping: storage.ping,
    fsync: storage.fsync,
    insertRows: storage.insertRows.bind(storage),
    close: () => store.close(),
  }
}
