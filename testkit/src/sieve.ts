import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { InProcessQueue, type InProcessQueueOptions } from '@sieve/queue'
import { migrate } from '@sieve/core'
import { createPipelineMetrics, type PipelineMetrics } from '@sieve/metrics'
import { createApp } from '@sieve/collector'
import { listen, type RunningServer } from '@sieve/http'
import { INGESTER_GROUP, startIngester, storeDeadLetters, type Ingester } from '@sieve/ingester'
import { openTestStorage } from './clickhouse-http.js'

export interface SieveOptions {
  apiKeys?: Map<string, string>
  /** The collector's request body limit (16 MiB unless set). */
  maxBodyBytes?: number
  /** The in-process queue's settings (its defaults unless set). */
  queue?: InProcessQueueOptions
  /** Where the collector logs errors no client may see (stderr unless set). */
  log?: (message: string) => void
}

export interface RunningSieve {
  /** Collector base URL (the SDK's `endpoint`). */
  url: string
  storage: Storage
  queue: InProcessQueue
  ingester: Ingester
  server: RunningServer
  metrics: PipelineMetrics
  stop(): Promise<void>
}

/**
 * The real Sieve collector on the embedded engine, as `sieve up` runs it (in-process queue,
 * ingester, collector app), listening on 127.0.0.1:0 with its data in a fresh temporary
 * directory. chDB allows one data path per process: start it once per test file. With
 * `SIEVE_TEST_STORAGE=http` the storage is the server path instead, over the ClickHouse HTTP
 * stand-in on the same directory (see `openTestStorage`).
 */
export async function startSieve(options: SieveOptions = {}): Promise<RunningSieve> {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-testkit-'))
  const store = await openTestStorage({ path: join(dir, 'clickhouse') })
  const storage = store.storage
  await migrate(storage, { retentionDays: 30 })
  const metrics = createPipelineMetrics()
  // Built as `sieve up` builds it (cli/src/queue.ts): a publish waits for the ingester.
  const queue = new InProcessQueue({ gates: [INGESTER_GROUP], deadLetters: storeDeadLetters(storage, metrics), ...options.queue })
  const ingester = await startIngester({ queue, storage, metrics })
  const app = createApp({
    queue,
    storage,
    metrics,
    apiKeys: options.apiKeys ?? new Map(),
    maxBodyBytes: options.maxBodyBytes ?? 16 * 1024 * 1024,
    queueHeld: queue,
    ...(options.log ? { log: options.log } : {}),
  })
  const server = await listen(app, '127.0.0.1', 0)
  return {
    url: server.url,
    storage,
    queue,
    ingester,
    server,
    metrics,
    async stop() {
      await server.stop()
      await ingester.stop()
      await queue.close()
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
