import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), '../../../migrations')

/** One embedded engine under a fresh temporary directory, with every migration applied. */
export async function openEngine(): Promise<ClickHouseClient> {
  const path = mkdtempSync(join(tmpdir(), 'sieve-dashboard-'))
  const client = createClient({ connection: createChdbConnection({ path }) } as Parameters<typeof createClient>[0])
  for (const file of readdirSync(migrationsDir).filter((f) => f.endsWith('.sql')).sort()) {
    const sql = readFileSync(join(migrationsDir, file), 'utf8').replaceAll('{retention_days}', '3650')
    for (const statement of sql.split(/;\s*$/m).map((s) => s.trim()).filter((s) => s.replace(/--.*$/gm, '').trim())) {
      await client.command({ query: statement })
    }
  }
  return client
}
