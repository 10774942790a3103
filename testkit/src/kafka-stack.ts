import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import type { Storage } from '@sieve/core'
import { migrate } from '@sieve/core'
import { createPipelineMetrics, type PipelineMetrics } from '@sieve/metrics'
import { openKafkaQueue, type KafkaSettings, type KafkaSpanQueue } from '@sieve/queue'
import { createApp } from '@sieve/collector'
import { listen } from '@sieve/http'
import { startIngester } from '@sieve/ingester'
import { openTestStorage } from './clickhouse-http.js'

/** Kafka settings with topics of their own, so tests sharing a broker never see each other's records. */
export function uniqueKafkaSettings(brokers: string[], partitions = 3): KafkaSettings {
  const id = randomUUID().slice(0, 8)
  return {
    brokers,
    clientId: 'sieve-test',
    spansTopic: `spans-${id}`,
    scoresTopic: `scores-${id}`,
    deadLetterTopic: `spans-${id}.dead-letter`,
    partitions,
    replicationFactor: 1,
    sessionTimeoutMs: 10_000,
  }
}

/**
 * The production path in one process: OTLP/HTTP collector → Kafka → ingester → embedded
 * ClickHouse (one chDB engine per test file, as chDB allows one path per process), or, with
 * `SIEVE_TEST_STORAGE=http`, ClickHouse over HTTP (the stand-in, see `openTestStorage`).
 */
export interface KafkaStack {
  url: string
  storage: Storage
  queue: KafkaSpanQueue
  metrics: PipelineMetrics
  kafka: KafkaSettings
  close(): Promise<void>
}

export async function startKafkaStack(brokers: string[], apiKeys = new Map<string, string>()): Promise<KafkaStack> {
  const dir = await mkdtemp(join(tmpdir(), 'sieve-kafka-stack-'))
  const store = await openTestStorage({ path: join(dir, 'clickhouse') })
  const storage = store.storage
  await migrate(storage, { retentionDays: 30 })
  const metrics = createPipelineMetrics()
  const kafka = uniqueKafkaSettings(brokers)
  const queue = await openKafkaQueue({ kafka, metrics, publish: { failFastMs: 2000 }, consume: { minBackoffMs: 100, maxBackoffMs: 1000 } })
  const ingester = await startIngester({ queue, storage, metrics, commitAfterRollup: true })
  const server = await listen(createApp({ queue, storage, metrics, apiKeys, maxBodyBytes: 16 << 20 }), '127.0.0.1', 0)
  return {
    url: `${server.url}/v1/traces`,
    storage,
    queue,
    metrics,
    kafka,
    close: async () => {
      await server.stop()
      await ingester.stop()
      await queue.close()
      await store.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
}
