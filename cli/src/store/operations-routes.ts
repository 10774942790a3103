import { timingSafeEqual } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import express, { Router, type Request, type RequestHandler, type Response } from 'express'
import { zodProblems } from '@sieve/core'
import { projectDatasetPath } from '@sieve/dataset'
import { labelSchema } from '@sieve/review'
import { z } from 'zod'
import { OperationError, USER_ERROR_CODES, type StoreOperations } from './operations.js'

/** Who may call /ops: the CLI of the user who started this process (owner.json), an operator elsewhere (SIEVE_OPS_TOKEN). */
export interface OpsAccess {
  ownerToken?: string
  opsToken?: string
  /** This process's SIEVE_DATA_DIR: an operator's exports are written under its datasets/. */
  dataDir: string
}

type Caller = 'owner' | 'operator'

const same = (given: Buffer, token: string | undefined) =>
  token !== undefined && given.length === Buffer.byteLength(token) && timingSafeEqual(given, Buffer.from(token))

/** The bearer token, compared in constant time with each accepted one; who called goes to res.locals.caller. */
function requireToken(access: OpsAccess): RequestHandler {
  return (req, res, next) => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1] ?? '')
    const caller: Caller | undefined = same(given, access.ownerToken) ? 'owner' : same(given, access.opsToken) ? 'operator' : undefined
    if (caller) {
      res.locals.caller = caller
      return next()
    }
    res
      .status(401)
      .json({ error: { code: 'UNAUTHORIZED', message: 'the /ops routes take the token of the owner file (SIEVE_DATA_DIR/owner.json) or SIEVE_OPS_TOKEN' } })
  }
}

/** A dataset file name an operator may write: no folder, nothing hidden. */
const DATASET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/

/**
 * Where an export writes. The owner's CLI runs as the same user on the same machine: its path
 * stands. An operator's request comes from another machine: its file name goes into this
 * project's folder of datasets, as the dashboard's exports do, never anywhere else on this host.
 */
function exportPath(out: string, projectId: string, caller: Caller, dataDir: string): string {
  if (caller === 'owner') return out
  const name = out.split(/[\\/]/).pop() ?? ''
  if (!DATASET_NAME.test(name))
    throw new OperationError('USAGE', `--out must end in a file name (letters, digits, . _ -) for a remote Sieve; got '${name.slice(0, 40)}'`)
  const folder = dirname(projectDatasetPath(dataDir, projectId))
  mkdirSync(folder, { recursive: true })
  return join(folder, name)
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
  .object({
    labels: z.array(labelSchema),
    fromAnnotations: z.boolean(),
    project: z.string().min(1).optional(),
    threshold: z.number().min(0).max(1).optional(),
    dryRun: z.boolean(),
  })
  .strict()

const scoreRequest = z.object({ projectId: z.string().min(1), traceId: z.string().regex(/^[0-9a-fA-F]{32}$/), dryRun: z.boolean() }).strict()

function parse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body)
  if (parsed.success) return parsed.data
  throw new OperationError('BAD_REQUEST', zodProblems(parsed.error, { root: 'body' }).join('; '))
}

const handle =
  (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler =>
  async (req: Request, res: Response) => {
    try {
      res.json(await fn(req, res))
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'OPERATION_FAILED'
      const status = err instanceof OperationError ? err.status : USER_ERROR_CODES.has(code) ? 400 : 500
      res.status(status).json({ error: { code, message: (err as Error).message } })
    }
  }

/**
 * The CLI's operations (`/ops/export`, `/ops/score`, `/ops/checks`, `/ops/migrate`,
 * `/ops/calibrate`): a command run while `sieve up` owns the store (owner token), or from another
 * machine (SIEVE_URL with SIEVE_OPS_TOKEN), does its work here, on this process's store and with
 * its configuration.
 */
export function createOperationsRoutes(operations: StoreOperations, access: OpsAccess): Router {
  const router = Router()
  // Labels with inline transcripts run to megabytes; only holders of a token get this far.
  router.use(requireToken(access), express.json({ limit: '64mb' }))
  router.post(
    '/export',
    handle(async (req, res) => {
      const request = parse(exportRequest, req.body)
      return operations.export({ ...request, out: exportPath(request.out, request.projectId, res.locals.caller as Caller, access.dataDir) })
    }),
  )
  router.post(
    '/score',
    handle(async (req) => ({ outcome: (await operations.score(parse(scoreRequest, req.body))) ?? null })),
  )
  router.get(
    '/checks',
    handle(async (req) => ({ text: await operations.checks(typeof req.query.agent === 'string' ? req.query.agent : undefined) })),
  )
  router.post(
    '/migrate',
    handle(async () => operations.migrate()),
  )
  router.post(
    '/calibrate',
    handle(async (req) => operations.calibrate(parse(calibrateRequest, req.body))),
  )
  return router
}
