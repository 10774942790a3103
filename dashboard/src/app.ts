import type { Storage, LogFn } from '@sieve/core'
import { createTraceRoutes, jsonErrors, requestIds, securityHeaders, storageNotReady } from '@sieve/collector'
import express, { type Express } from 'express'
import { createDashboardApi } from './api.js'
import { createUi, UI_PATH } from './ui.js'

/**
 * The dashboard on its own (`sieve dashboard`, the production role): API, read API and UI over
 * ClickHouse, no ingest. `sieve up` mounts the same routers into the collector's app instead.
 */
export function createDashboardApp(options: { client: Storage; apiKeys: ReadonlyMap<string, string>; judgeModel?: string | undefined; log?: LogFn }): Express {
  const app = express()
  app.disable('x-powered-by')
  app.use(requestIds())
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  // Every page reads storage: not ready until it answers and is migrated.
  app.get('/readyz', async (_req, res) => {
    const notReady = await storageNotReady(options.client)
    if (notReady) res.status(503).json({ status: 'unavailable', message: notReady })
    else res.json({ status: 'ready' })
  })
  app.get('/', securityHeaders(), (_req, res) => res.redirect(`${UI_PATH}/`))
  app.use('/api', createDashboardApi({ client: options.client, apiKeys: options.apiKeys, judgeModel: options.judgeModel }))
  app.use(createTraceRoutes({ storage: options.client, apiKeys: options.apiKeys }))
  app.use(UI_PATH, createUi())
  app.use((req, res) => {
    res.status(404).json({ error: { code: 'NOT_FOUND', message: `no route for ${req.method} ${req.path}` } })
  })
  app.use(jsonErrors(options.log ?? ((message) => console.error(message)), 'sieve dashboard'))
  return app
}
