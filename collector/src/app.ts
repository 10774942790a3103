import type { Storage, LogFn, QueueHeld, SpanQueue } from '@sieve/core'
import type { PipelineMetrics } from '@sieve/metrics'
import { Router, type Express } from 'express'
import {
  BytesInFlight,
  createFeedbackRoutes,
  createHttpApp,
  createLogsRouter,
  createOtlpRouter,
  createTraceRoutes,
  storageNotReady,
  type MountedRouter,
  type TraceDetails,
} from '@sieve/http'
import { metricsAccess } from './metrics-access.js'

export interface AppOptions {
  queue: SpanQueue
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
  /** `SIEVE_METRICS_TOKEN`: who may read `/metrics` (see metrics-access.ts). */
  metricsToken?: string
  maxBodyBytes: number
  /** OTLP trace and log bodies read or decoded at once, as sent (SIEVE_MAX_BYTES_IN_FLIGHT); unset: no bound. */
  maxBytesInFlight?: number
  metrics: PipelineMetrics
  /** What waits in the queue, for its gauges (the in-process queue; Kafka holds spans on the brokers). */
  queueHeld?: QueueHeld
  /** More routers mounted after ingest and before the read API (the dashboard's /api and /ui). */
  routes?: MountedRouter[]
  /** What `GET /api/traces/:id` adds to a trace (the dashboard's scores and feedback). */
  traceDetails?: TraceDetails
  /**
   * Serve OTLP ingest and the read API (default). `false` leaves health, readiness and metrics
   * only, for a process that consumes the queue and takes no traffic (`sieve ingester`).
   */
  serveTraffic?: boolean
  /** The methods each served path takes, for 405 answers (see createHttpApp); with traffic only. */
  allowedMethods?: (path: string) => readonly string[] | undefined
  /** Where errors no client may see go in full (default: stderr). */
  log?: LogFn
}

/** The collector's HTTP surface: OTLP ingest, the read API, feedback, health, readiness and metrics. */
export function createApp(options: AppOptions): Express {
  const { metrics, queueHeld, storage, apiKeys } = options
  const log: LogFn = options.log ?? ((message) => console.error(message))
  const metricsRoute = Router().get('/metrics', metricsAccess({ apiKeys, token: options.metricsToken }), async (_req, res) => {
    if (queueHeld) {
      metrics.queueDepth.set(queueHeld.depth())
      metrics.queueBytes.set(queueHeld.bytes())
    }
    res.set('Content-Type', metrics.registry.contentType).send(await metrics.registry.metrics())
  })
  // Trace and log bodies count against one bound: either signal alone could fill the memory it guards.
  const bytesInFlight = new BytesInFlight(options.maxBytesInFlight ?? Infinity, metrics)
  const traffic: MountedRouter[] = [
    { handler: createOtlpRouter({ queue: options.queue, apiKeys, maxBodyBytes: options.maxBodyBytes, metrics, log, bytesInFlight }) },
    { handler: createLogsRouter({ storage, apiKeys, maxBodyBytes: options.maxBodyBytes, metrics, log, bytesInFlight }) },
    ...(options.routes ?? []),
    { handler: createTraceRoutes({ storage, apiKeys, ...(options.traceDetails ? { details: options.traceDetails } : {}) }) },
    { handler: createFeedbackRoutes({ storage, apiKeys }) },
  ]
  return createHttpApp({
    name: 'sieve collector',
    log,
    notReady: async () => {
      const notReady = await storageNotReady(storage)
      if (notReady) return notReady
      // Reachable is not enough: on the embedded queue, storage refusing every insert stalls ingest.
      const stalled = options.queue.stalled()
      return stalled === undefined ? undefined : `storage is not taking spans: ${stalled}`
    },
    routers: [{ handler: metricsRoute }, ...(options.serveTraffic === false ? [] : traffic)],
    ...(options.allowedMethods && options.serveTraffic !== false ? { allowedMethods: options.allowedMethods } : {}),
  })
}
