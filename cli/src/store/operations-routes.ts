import { timingSafeEqual } from 'node:crypto'
import express, { Router, type Request, type RequestHandler, type Response } from 'express'
import { zodProblems } from '@sieve/core'
import { labelSchema } from '@sieve/scorer'
import { z } from 'zod'
import { OperationError, USER_ERROR_CODES, type StoreOperations } from './operations.js'

/** The owner token in `Authorization: Bearer`, compared in constant time. */
function requireToken(token: string): RequestHandler {
  const expected = Buffer.from(token)
  return (req, res, next) => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '')
    if (given.length === expected.length && timingSafeEqual(given, expected)) return next()
    res.status(401).json({ error: { code: 'UNAUTHORIZED', message: 'the /ops routes take the token of the owner file (SIEVE_DATA_DIR/owner.json)' } })
  }
}

const exportRequest = z
  .object({
    out: z.string().min(1),
    projectId: z.string().min(1),
    score: z.string().optional(),
    below: z.number().min(0).max(1).optional(),
    failed: z.string().optional(),
    failedGate: z.string().optional(),
    feedback: z.object({ maxScore: z.number().optional(), comment: z.string().optional() }).optional(),
    sinceUnixNano: z.string().regex(/^\d+$/),
    service: z.string().optional(),
    limit: z.number().int().positive(),
    traceIds: z.array(z.string()).optional(),
    bucket: z.enum(['typical', 'edge', 'known-failure']),
    reviewAfterDays: z.number().int().positive(),
    dryRun: z.boolean(),
  })
  .strict()

const calibrateRequest = z
  .object({ labels: z.array(labelSchema), fromAnnotations: z.boolean(), threshold: z.number().min(0).max(1).optional(), dryRun: z.boolean() })
  .strict()

const scoreRequest = z.object({ projectId: z.string().min(1), traceId: z.string().regex(/^[0-9a-fA-F]{32}$/), dryRun: z.boolean() }).strict()

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  throw new OperationError('BAD_REQUEST', zodProblems(parsed.error, { root: 'body' }).join('; '))
}

const handle =
  (fn: (req: Request) => Promise<unknown>): RequestHandler =>
  async (req: Request, res: Response) => {
    try {
      res.json(await fn(req))
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'OPERATION_FAILED'
      const status = err instanceof OperationError ? err.status : USER_ERROR_CODES.has(code) ? 400 : 500
      res.status(status).json({ error: { code, message: (err as Error).message } })
    }
  }

/**
 * `sieve up`'s operations for the CLI commands of the same user (`/ops/export`, `/ops/score`,
 * `/ops/checks`, `/ops/migrate`, `/ops/calibrate`), behind the owner token: a command run while Sieve runs does its
 * work here, on the store this process holds and with its configuration.
 */
export function createOperationsRoutes(operations: StoreOperations, token: string): Router {
  const router = Router()
  // Labels with inline transcripts run to megabytes; only the owner's own user holds the token.
  router.use(requireToken(token), express.json({ limit: '64mb' }))
  router.post('/export', handle(async (req) => operations.export(parse(exportRequest, req.body))))
  router.post('/score', handle(async (req) => ({ outcome: (await operations.score(parse(scoreRequest, req.body))) ?? null })))
  router.get('/checks', handle(async (req) => ({ text: await operations.checks(typeof req.query.agent === 'string' ? req.query.agent : undefined) })))
  router.post('/migrate', handle(async () => operations.migrate()))
  router.post('/calibrate', handle(async (req) => operations.calibrate(parse(calibrateRequest, req.body))))
  return router
}
