import type { ClickHouseClient } from '@clickhouse/client'
import { createApp, listen, startIngester, type CollectorMetrics, type InProcessQueue } from '@sieve/collector'
import { readTrace, type Config } from '@sieve/core'
import { createDashboardApi, createUi, UI_PATH } from '@sieve/dashboard'
import { clickhouseScoreSink, createScorerMetrics, loadChecksConfig, loadScorerOptions, Scorer } from '@sieve/scorer'

/** What every part of `sieve up` is started with. */
export interface UpContext {
  config: Config
  storage: ClickHouseClient
  queue: InProcessQueue
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

export const ingesterPart: Part = async ({ queue, storage, metrics }) => {
  const ingester = await startIngester({
    queue, storage, metrics,
    onError: (error) => console.error(`sieve up: rewriting the traces rollup failed, will retry: ${(error as Error).message}`),
  })
  return { name: 'ingester', stop: () => ingester.stop() }
}

/**
 * The deterministic scorer, on its own consumer group. The embedded queue keeps nothing across a
 * restart, so on stop the scorer scores the traces it still holds instead of leaving them.
 */
export const scorerPart: Part = async ({ config, queue, storage, metrics }) => {
  const checks = await loadChecksConfig(config.sections)
  const scorer = await Scorer.start({
    queue,
    checks,
    sink: clickhouseScoreSink(storage),
    options: loadScorerOptions(config.sections),
    metrics: createScorerMetrics(metrics.registry),
    loadStoredTrace: (projectId, traceId) => readTrace(storage, projectId, traceId),
    log: (message) => console.error(`sieve up: ${message}`),
  })
  return { name: 'scorer', stop: () => scorer.stop({ flush: true }) }
}

export const collectorPart: Part = async ({ config, queue, storage, metrics }) => {
  const dashboardApi = createDashboardApi({ client: storage, apiKeys: config.apiKeys, metricsText: () => metrics.registry.metrics() })
  const app = createApp({
    queue, storage, metrics, apiKeys: config.apiKeys, maxBodyBytes: config.maxBodyBytes, queueDepth: () => queue.depth(),
    routes: [{ path: '/api', handler: dashboardApi }, { path: UI_PATH, handler: createUi() }],
  })
  const server = await listen(app, config.host, config.port)
  return {
    name: 'collector',
    banner: [
      `OTLP/HTTP traces: ${server.url}/v1/traces  (OTEL_EXPORTER_OTLP_ENDPOINT=${server.url})`,
      `Read API:         ${server.url}/api/traces`,
      `Metrics:          ${server.url}/metrics`,
      `Dashboard:        ${server.url}${UI_PATH}/`,
    ],
    stop: () => server.stop(),
  }
}

/**
 * The parts `sieve up` runs, in start order. The ingester and the scorer subscribe before the
 * collector listens, so no accepted span waits for a consumer; on stop the collector stops accepting
 * first, then the ingester drains what is queued.
 */
export const parts: Part[] = [ingesterPart, scorerPart, collectorPart]
