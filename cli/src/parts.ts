import type { ClickHouseClient } from '@clickhouse/client'
import { createApp, InProcessQueue, listen, startIngester, type CollectorMetrics } from '@sieve/collector'
import type { Config, SpanQueue } from '@sieve/core'

/** What every part of `sieve up` is started with. */
export interface UpContext {
  config: Config
  storage: ClickHouseClient
  queue: SpanQueue
  metrics: CollectorMetrics
}

/** A started part; `sieve up` stops parts in the reverse order it started them. */
export interface RunningPart {
  name: string
  /** Lines printed once everything runs (where to send traces, where the UI is). */
  banner?: string[]
  stop(): Promise<void>
}

export type Part = (context: UpContext) => Promise<RunningPart>

export const ingesterPart: Part = async ({ config, queue, storage, metrics }) => {
  const ingester = await startIngester({
    queue, storage, metrics,
    commitAfterRollup: config.kafka !== undefined,
    onError: (error) => console.error(`sieve ingester: ${(error as Error).message} (the rollup is retried; uncommitted batches are replayed)`),
  })
  return { name: 'ingester', stop: () => ingester.stop() }
}

export const collectorPart: Part = async ({ config, queue, storage, metrics }) => {
  const app = createApp({
    queue, storage, metrics, apiKeys: config.apiKeys, maxBodyBytes: config.maxBodyBytes,
    queueDepth: queue instanceof InProcessQueue ? () => queue.depth() : undefined,
  })
  const server = await listen(app, config.host, config.port)
  return {
    name: 'collector',
    banner: [
      `OTLP/HTTP traces: ${server.url}/v1/traces  (OTEL_EXPORTER_OTLP_ENDPOINT=${server.url})`,
      `Read API:         ${server.url}/api/traces`,
      `Metrics:          ${server.url}/metrics`,
    ],
    stop: () => server.stop(),
  }
}

/** Health, readiness and metrics of a process that takes no traffic (`sieve ingester`). */
export const opsPart: Part = async ({ config, queue, storage, metrics }) => {
  const app = createApp({ queue, storage, metrics, apiKeys: config.apiKeys, maxBodyBytes: config.maxBodyBytes, serveTraffic: false })
  const server = await listen(app, config.host, config.port)
  return { name: 'ops', banner: [`Metrics:          ${server.url}/metrics`], stop: () => server.stop() }
}

/**
 * The parts `sieve up` runs, in start order. The ingester subscribes before the collector
 * listens, so no accepted span waits for a consumer; on stop the collector stops accepting
 * first, then the ingester drains what is queued.
 */
export const parts: Part[] = [ingesterPart, collectorPart]
