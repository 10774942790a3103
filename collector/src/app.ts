import type { Storage, LogFn, SpanQueue, PipelineMetrics } from '@sieve/core'
import express, { type Express, type RequestHandler } from 'express'
import { jsonErrors } from './api/json-errors.js'
import { requestIds } from './api/request-id.js'
import { storageNotReady } from './api/storage-readiness.js'
import { createTraceRoutes } from './api/trace-routes.js'
import { createFeedbackRoutes } from './feedback/feedback-routes.js'
import { metricsAccess } from './metrics-access.js'
import { InProcessQueue } from '@sieve/queue'
import { createOtlpRouter } from './receiver/index.js'

export interface AppOptions {
  queue: SpanQueue
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
  /** `SIEVE_METRICS_TOKEN`: who may read `/metrics` (see metrics-access.ts). */
  metricsToken?: string
  maxBodyBytes: number
  metrics: PipelineMetrics
  /** Spans waiting in the queue, for the queue depth gauge (in-process queue only). */
  queueDepth?: () => number
  /** More routes mounted ahead of the read API (the dashboard's /api and /ui), by path prefix. */
  routes?: { path: string; handler: RequestHandler }[]
  /**
   * Serve OTLP ingest and the read API (default). `false` leaves health, readiness and metrics
   * only, for a process that consumes the queue and takes no traffic (`sieve ingester`).
   */
  serveTraffic?: boolean
  /** Where errors no client may see go in full (default: stderr). */
  log?: LogFn
}

/** The collector's HTTP surface: OTLP ingest, the read API, health, readiness and metrics. */
export function createApp(options: AppOptions): Express {
  const app = express()
  app.disable('x-powered-by')

  const { metrics, queueDepth } = options
  const log: LogFn = options.log ?? ((message) => console.error(message))
  app.use(requestIds())

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })

  app.get('/readyz', async (_req, res) => {
    const notReady = await storageNotReady(options.storage)
    if (notReady) {
      res.status(503).json({ status: 'unavailable', message: notReady })
      return
    }
    // Reachable is not enough: on the embedded queue, storage refusing every insert stalls ingest.
    const stalled = options.queue instanceof InProcessQueue ? options.queue.stalled() : undefined
    if (stalled !== undefined) {
      res.status(503).json({ status: 'unavailable', message: `storage is not taking spans: ${stalled}` })
      return
    }
    res.json({ status: 'ready' })
  })

  app.get('/metrics', metricsAccess({ apiKeys: options.apiKeys, token: options.metricsToken }), async (_req, res) => {
    if (queueDepth) metrics.queueDepth.set(queueDepth())
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics())
  })

  if (options.serveTraffic !== false) {
    app.use(createOtlpRouter({ queue: options.queue, apiKeys: options.apiKeys, maxBodyBytes: options.maxBodyBytes, metrics, log }))
    for (const route of options.routes ?? []) app.use(route.path, route.handler)
    app.use(createTraceRoutes({ storage: options.storage, apiKeys: options.apiKeys }))
    app.use(createFeedbackRoutes({ storage: options.storage, apiKeys: options.apiKeys }))
  }

  app.use((req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: `no route for ${req.method} ${req.path}` } })
  })
  app.use(jsonErrors(log, 'sieve collector'))
  return app
}
