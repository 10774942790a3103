import { randomUUID } from 'node:crypto'
import type { RequestHandler, Response } from 'express'

/** A caller's id worth keeping: short, no spaces or control characters (it ends up in logs). */
const USABLE = /^[A-Za-z0-9._:-]{1,64}$/

/**
 * Gives every request an id, the caller's `X-Request-Id` when it sent a usable one, and answers
 * with it: a client quoting it in a report finds the log line of its failed request.
 */
export function requestIds(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id')
    const id = given && USABLE.test(given) ? given : randomUUID()
    res.locals.requestId = id
    res.setHeader('X-Request-Id', id)
    next()
  }
}

export const requestIdOf = (res: Response): string | undefined => (typeof res.locals.requestId === 'string' ? res.locals.requestId : undefined)
