import { zodProblems } from '@sieve/core'
import type { Request, RequestHandler, Response } from 'express'
import type { z } from 'zod'

/** The dashboard API's handlers: errors as `{error: {code, message}}` with their status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const problems = zodProblems(result.error, { root: '', unknown: what })
  const tooLarge = result.error.issues.some((i) => /at most \d+ (days|points)|at most \d+,/.test(i.message))
  throw new ApiError(400, tooLarge ? 'RANGE_TOO_LARGE' : 'INVALID_PARAMETER', problems.join('; '))
}

/** The project requireProject resolved from the request's API key. */
export const requestProject = (res: Response): string => {
  const project = res.locals.projectId
  if (typeof project !== 'string' || project === '') throw new ApiError(500, 'NO_PROJECT', 'authentication did not resolve a project')
  return project
}

/** Answers an error: an ApiError with its status, anything else a 500 with a message. */
export function sendError(res: Response, err: unknown): void {
  const e = err instanceof ApiError ? err : new ApiError(500, 'QUERY_FAILED', `query failed: ${(err as Error).message}`)
  res.status(e.status).json({ error: { code: e.code, message: e.message } })
}

/**
 * Wraps an async handler: what it returns is the JSON answer (with the status it set, 200 unless
 * it set another), what it throws goes to sendError.
 */
export const handle =
  (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler =>
  async (req, res) => {
    try {
      res.json(await fn(req, res))
    } catch (err) {
      sendError(res, err)
    }
  }
