import type { LogFn } from '@sieve/core'
import type { ErrorRequestHandler } from 'express'
import { requestIdOf } from './request-id.js'

/**
 * The last error handler of an app serving the read API. A client error raised before a route
 * ran (a path parameter that is not valid percent-encoding, a body that is not JSON or too large:
 * express and body-parser mark those with a 4xx `status`) gets that status and its message, not
 * the storage answer below.
 * Anything else is a storage error on a read or write: the request may succeed later and the
 * process keeps serving. Its text can quote stored rows, so it goes to the log and the client
 * gets the problem only.
 */
export function jsonErrors(log: LogFn, name: string): ErrorRequestHandler {
  return (err: Error & { status?: unknown; expose?: unknown }, req, res, _next) => {
    const status = typeof err?.status === 'number' ? err.status : 0
    if (status >= 400 && status < 500) {
      res.status(status).json({ error: { code: 'BAD_REQUEST', message: err.expose === false ? 'bad request' : err.message } })
      return
    }
    log(`${name}: ${req.method} ${req.path} failed: ${err?.stack ?? String(err)}`, { requestId: requestIdOf(res) })
    res.status(503).json({ error: { code: 'UNAVAILABLE', message: 'storage is unavailable; retry later' } })
  }
}
