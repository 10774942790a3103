import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ClickHouseClient } from '@clickhouse/client'
import { createStorage, migrate } from '@sieve/core'
import { createApp, createMetrics, InProcessQueue, listen, startIngester, type Ingester, type RunningServer } from '../../src/index.js'

export interface Pipeline {
  storage: ClickHouseClient
  queue: InProcessQueue
  ingester: Ingester
  server: RunningServer
  stop(): Promise<void>
}

/**
 * The embedded pipeline as `sieve up` wires it (real chDB engine under a temp dir, in-process
 * queue, ingester, collector app on an ephemeral loopback port). One per test file: chDB allows
 * one on-disk path per process.
 */
export async function startPipeline(apiKeys: Map<string, string>): Promise<Pipeline> {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-pipeline-'))
  const storage = await createStorage({ kind: 'embedded', path: join(dir, 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  const queue = new InProcessQueue()
  const metrics = createMetrics()
  const ingester = await startIngester({ queue, storage, metrics })
  const app = createApp({ queue, storage, metrics, apiKeys, maxBodyBytes: 4 << 20, queueDepth: () => queue.depth() })
  const server = await listen(app, '127.0.0.1', 0)
  return {
    storage, queue, ingester, server,
    stop: async () => {
      await server.stop()
      await ingester.stop()
      await queue.close()
      await storage.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
