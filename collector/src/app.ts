import type { ClickHouseClient } from '@clickhouse/client'
import { migrationsApplied, type SpanQueue } from '@sieve/core'
import express, { type ErrorRequestHandler, type Express } from 'express'
import { Gauge, type Registry } from 'prom-client'
import { createTraceRoutes } from './api/traceRoutes.js'
import { createFeedbackRoutes } from './feedback/feedbackRoutes.js'
import { createMetrics } from './metrics.js'
import { createOtlpRouter } from './receiver/index.js'

export interface AppOptions {
  queue: SpanQueue
  storage: ClickHouseClient
  apiKeys: ReadonlyMap<string, string>
  maxBodyBytes: number
  registry: Registry
  /** Spans waiting in the queue, for the `sieve_queue_depth` gauge (in-process queue only). */
  queueDepth?: () => number
}

/** The collector's HTTP surface: OTLP ingest, the read API, health, readiness and metrics. */
export function createApp(options: AppOptions): Express {
  const app = express()
  app.disable('x-powered-by')

  if (options.queueDepth) {
    const depth = options.queueDepth
    new Gauge({
      name: 'sieve_queue_depth',
      help: 'Spans accepted but not yet stored.',
      registers: [options.registry],
      collect() {
        this.set(depth())
      },
    })
  }

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })

  app.get('/readyz', async (_req, res) => {
    const ping = await options.storage.ping()
    if (!ping.success) {
      res.status(503).json({ status: 'unavailable', message: `storage unreachable: ${ping.error.message}` })
      return
    }
    if (!(await migrationsApplied(options.storage))) {
      res.status(503).json({ status: 'unavailable', message: 'migrations not applied: run `sieve migrate`' })
      return
    }
    res.json({ status: 'ready' })
  })

  app.get('/metrics', async (_req, res) => {
    res.set('Content-Type', options.registry.contentType).send(await options.registry.metrics())
  })

  app.use(createOtlpRouter({ queue: options.queue, apiKeys: options.apiKeys, maxBodyBytes: options.maxBodyBytes, metrics: createMetrics() }))
  app.use(createTraceRoutes({ storage: options.storage, apiKeys: options.apiKeys }))
  app.use(createFeedbackRoutes({ storage: options.storage, apiKeys: options.apiKeys }))

  app.use((req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: `no route for ${req.method} ${req.path}` } })
  })
  const onError: ErrorRequestHandler = (err: Error, _req, res, _next) => {
    // Storage errors on reads: the request may succeed later, the process keeps serving.
    res.status(503).json({ error: { code: 'UNAVAILABLE', message: err.message } })
  }
  app.use(onError)
  return app
}
