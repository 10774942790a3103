import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { migrate } from '@sieve/core'
import { startFakeOpenAI, verdict, type FakeOpenAI } from '@sieve/testkit'
import { openTestStorage } from '@sieve/testkit/clickhouse-http'

export interface Testbed {
  /** A fresh temporary folder: the store's, and room for config files. */
  dir: string
  storage: Storage
  /** The local OpenAI-compatible server the judge calls; answers every dimension at level 3 until told otherwise. */
  server: FakeOpenAI
  close(): Promise<void>
}

/**
 * What a judge test over storage starts from: a migrated store of its own (embedded, or over HTTP
 * with SIEVE_TEST_STORAGE=http) in a fresh folder, and the fake model. One per test file: chDB
 * allows one data path per process.
 */
export async function judgeTestbed(name: string): Promise<Testbed> {
  const dir = mkdtempSync(join(tmpdir(), `sieve-${name}-`))
  const store = await openTestStorage({ path: join(dir, 'clickhouse') })
  await migrate(store.storage, { retentionDays: 30 })
  const server = await startFakeOpenAI({ script: (r) => verdict(r, 3) })
  return {
    dir,
    storage: store.storage,
    server,
    async close() {
      await server.close()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
