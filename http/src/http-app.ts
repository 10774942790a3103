import type { LogFn } from '@sieve/core'
import express, { type Express, type RequestHandler } from 'express'
import { jsonErrors } from './api/json-errors.js'
import { requestIds } from './api/request-id.js'
import { securityHeaders } from './api/security-headers.js'

/** A router and where it is mounted (no path: at the root, its routes carry their own paths). */
export interface MountedRouter {
  path?: string
  handler: RequestHandler
}

export interface HttpAppOptions {
  /** The role answering (`sieve collector`), in the log line of an error no client may see. */
  name: string
  /** Why the process cannot serve now (storage unreachable, a stalled queue), or undefined when ready. */
  notReady: () => Promise<string | undefined>
  /** The role's routers, in the order requests try them; each path is served by one of them. */
  routers: MountedRouter[]
  /**
   * The methods a path is served in, when it is (the dashboard's `allowedMethods`, from the API
   * document): a request for it in another method is a 405 naming them in `Allow`, not a 404.
   */
  allowedMethods?: (path: string) => readonly string[] | undefined
  log: LogFn
}

/**
 * The OTLP paths of the signals Sieve does not receive. OpenTelemetry SDKs pointed at Sieve with
 * OTEL_EXPORTER_OTLP_ENDPOINT send metrics there by default (Python's auto-instrumentation, the
 * Java agent): their 404 says why. (Logs are received for the GenAI events among them.)
 */
const OTHER_SIGNAL = /^\/v1\/(metrics|profiles)\/?$/

/**
 * Every Sieve HTTP server: request ids, `/healthz` (the process answers), `/readyz`, the role's
 * routers, then one 404 (405 for a served path in another method) and one error answer for all of
 * them. Every answer carries the security headers (`securityHeaders()`). Auth and project scoping belong to the routers (`requireProject`), since what a key may
 * read differs by route.
 */
export function createHttpApp(options: HttpAppOptions): Express {
  const app = express()
  app.disable('x-powered-by')
  app.use(requestIds())
  // Before any route, so 404s, errors and OTLP answers carry them too; a router may set its own policy.
  app.use(securityHeaders())
  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' })
  })
  app.get('/readyz', async (_req, res) => {
    const notReady = await options.notReady()
    if (notReady) res.status(503).json({ status: 'unavailable', message: notReady })
    else res.json({ status: 'ready' })
  })
  for (const { path, handler } of options.routers) {
    if (path) app.use(path, handler)
    else app.use(handler)
  }
  app.use((req, res) => {
    const allowed = options.allowedMethods?.(req.path)
    if (allowed && !allowed.includes(req.method)) {
      res.set('Allow', allowed.join(', ')).status(405)
      res.json({ error: { code: 'METHOD_NOT_ALLOWED', message: `${req.method} ${req.path} is not served; it takes ${allowed.join(', ')}` } })
      return
    }
    const signal = OTHER_SIGNAL.exec(req.path)?.[1]
    const message = signal
      ? `${req.method} ${req.path}: Sieve receives OpenTelemetry traces (POST /v1/traces), not ${signal}; ` +
        `turn the ${signal} exporter off (OTEL_${signal.toUpperCase()}_EXPORTER=none) or send ${signal} elsewhere`
      : `no route for ${req.method} ${req.path}`
    res.status(404).json({ error: { code: 'NOT_FOUND', message } })
  })
  app.use(jsonErrors(options.log, options.name))
  return app
}
