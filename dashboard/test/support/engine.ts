import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { createStorage, migrate } from '@sieve/core'

/** One embedded engine under a fresh temporary directory, migrated as `sieve up` does it. */
export async function openEngine(retentionDays = 3650): Promise<Storage> {
  const path = mkdtempSync(join(tmpdir(), 'sieve-dashboard-'))
  const client = await createStorage({ kind: 'embedded', path, database: 'sieve' })
  await migrate(client, { retentionDays })
  return client
}
