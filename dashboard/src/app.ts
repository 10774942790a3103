import type { LogFn } from '@sieve/core'
import { createHttpApp, createTraceRoutes, securityHeaders, storageNotReady } from '@sieve/http'
import { Router, type Express } from 'express'
import { createDashboardApi, traceDetails, type DashboardApiOptions } from './api.js'
import { allowedMethods } from './openapi.js'
import { createUi, UI_PATH } from './ui.js'

/**
 * The dashboard on its own (`sieve dashboard`, the production role): API, read API and UI over
 * ClickHouse, no ingest. `sieve up` mounts the same routers into the collector's app instead.
 */
export function createDashboardApp(options: DashboardApiOptions & { log?: LogFn }): Express {
  const { client, apiKeys } = options
  return createHttpApp({
    name: 'sieve dashboard',
    log: options.log ?? ((message) => console.error(message)),
    // Every page reads storage: not ready until it answers and is migrated.
    notReady: () => storageNotReady(client),
    // Ingest and /metrics are the collector's: here they are paths this role does not serve.
    allowedMethods: (path) => (path.startsWith('/v1/') || path === '/metrics' ? undefined : allowedMethods(path)),
    routers: [
      { handler: Router().get('/', securityHeaders(), (_req, res) => res.redirect(`${UI_PATH}/`)) },
      { path: '/api', handler: createDashboardApi(options) },
      { handler: createTraceRoutes({ storage: client, apiKeys, details: traceDetails(client) }) },
      { path: UI_PATH, handler: createUi() },
    ],
  })
}
