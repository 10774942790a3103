import type { RequestHandler } from 'express'
import { projectOf } from '../receiver/authenticate.js'
import { ReceiverError } from '../receiver/receiver-error.js'

/**
 * Express guard for the read API, with the receiver's key → project mapping, so a key reads
 * exactly the data it sent. Sets `res.locals.projectId`, or answers 401 with a JSON error.
 */
export function requireProject(apiKeys: ReadonlyMap<string, string>): RequestHandler {
  return (req, res, next) => {
    try {
      res.locals.projectId = projectOf(req.headers, apiKeys)
    } catch (err) {
      if (!(err instanceof ReceiverError)) throw err
      res
        .status(err.status)
        .set('WWW-Authenticate', 'Bearer')
        .json({ error: { code: 'UNAUTHORIZED', message: err.message } })
      return
    }
    next()
  }
}
