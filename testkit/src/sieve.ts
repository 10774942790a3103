import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'
import { createApp, createMetrics, InProcessQueue, listen, startIngester } from '@sieve/collector'
import { createStorage, migrate } from '@sieve/core'

export interface RunningSieve {
  /** Collector base URL (the SDK's `endpoint`). */
  url: string
  storage: ClickHouseClient
  stop(): Promise<void>
}

/**
 * The real Sieve collector on the embedded engine, as `sieve up` runs it, listening on
 * 127.0.0.1:0 with its data in a fresh temporary directory. chDB allows one data path per
 * process: start it once per test file.
 */
export async function startSieve(options: { apiKeys?: Map<string, string> } = {}): Promise<RunningSieve> {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-testkit-'))
  const storage = await createStorage({ kind: 'embedded', path: join(dir, 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  const queue = new InProcessQueue()
  const metrics = createMetrics()
  const ingester = await startIngester({ queue, storage, metrics })
  const app = createApp({ queue, storage, metrics, apiKeys: options.apiKeys ?? new Map(), maxBodyBytes: 16 * 1024 * 1024 })
  const server = await listen(app, '127.0.0.1', 0)
  return {
    url: server.url,
    storage,
    async stop() {
      await server.stop()
      await ingester.stop()
      await queue.close()
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
