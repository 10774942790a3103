import { Router, json, type Request, type RequestHandler, type Response } from 'express'
import { zodProblems, type Storage } from '@sieve/core'
import { requireProject, securityHeaders, type TraceDetails } from '@sieve/collector'
import { traceIdSchema } from '@sieve/protocol'
import type { z } from 'zod'
import type { DatasetExporter } from './exporter.js'
import { compareQuery, exportBody, qualityQuery, scorecardQuery, sessionIdParam, worstQuery } from './params.js'
import { openApiDocument } from './openapi.js'
import { pipelineCounters, type MetricFamilies } from './pipeline.js'
import { compare } from './queries/compare.js'
import { quality } from './queries/quality.js'
import { scorecard } from './queries/scorecard.js'
import { session } from './queries/session.js'
import { status } from './queries/status.js'
import { traceQuality } from './queries/trace-quality.js'
import { worst } from './queries/worst.js'

export interface DashboardApiOptions {
  client: Storage
  /** API key → project, as for ingest: a key reads exactly the data it sent (the receiver's auth code). */
  apiKeys: ReadonlyMap<string, string>
  /** The exporter behind "export to dataset"; without it `POST /export` answers 501. */
  exporter?: DatasetExporter
  /** The collector's Prometheus text, for pipeline health on the overview. */
  metrics?: () => Promise<MetricFamilies>
  /** JUDGE_MODEL as configured: the UI says "judge off" where judge figures would be when it is unset. */
  judgeModel?: string | undefined
}

export class ApiError extends Error {
  constructor(readonly status: number, readonly code: string, message: string) {
    super(message)
  }
}

function parse<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const problems = zodProblems(result.error, { root: '', unknown: what })
  const tooLarge = result.error.issues.some((i) => /at most \d+ (days|points)|at most \d+,/.test(i.message))
  throw new ApiError(400, tooLarge ? 'RANGE_TOO_LARGE' : 'INVALID_PARAMETER', problems.join('; '))
}

/** The project requireProject resolved from the request's API key. */
const requestProject = (res: Response): string => {
  const project = res.locals.projectId
  if (typeof project !== 'string' || project === '') throw new ApiError(500, 'NO_PROJECT', 'authentication did not resolve a project')
  return project
}

/** Wraps an async handler so a thrown ApiError becomes its status and anything else a 500 with a message. */
const handle =
  (fn: (req: Request, res: Response) => Promise<unknown>): RequestHandler =>
  async (req, res) => {
    try {
      res.json(await fn(req, res))
    } catch (err) {
      const e = err instanceof ApiError ? err : new ApiError(500, 'QUERY_FAILED', `query failed: ${(err as Error).message}`)
      res.status(e.status).json({ error: { code: e.code, message: e.message } })
    }
  }

/**
 * What the dashboard adds to the read API's `GET /api/traces/:id`: the trace's scores and feedback
 * (the route itself is the collector's, one for every role that serves it).
 */
export const traceDetails =
  (client: Storage): TraceDetails =>
  (project, traceId) =>
    traceQuality(client, project, traceId)

/** The dashboard's API, mounted under /api by `sieve up` and `sieve dashboard` beside the collector's read API. */
export function createDashboardApi(options: DashboardApiOptions): Router {
  const { client } = options
  const router = Router()
  // Open, like /healthz: it says what the API takes, nothing of any project's data.
  const document = openApiDocument()
  router.get('/openapi.json', securityHeaders(), (_req, res) => res.json(document))
  router.use(securityHeaders(), requireProject(options.apiKeys))

  router.get('/quality', handle(async (req, res) => quality(client, requestProject(res), parse(qualityQuery, req.query, 'parameter'))))
  router.get('/worst', handle(async (req, res) => ({ traces: await worst(client, requestProject(res), parse(worstQuery, req.query, 'parameter')) })))
  router.get('/scorecard', handle(async (req, res) => scorecard(client, requestProject(res), parse(scorecardQuery, req.query, 'parameter'))))
  router.get('/compare', handle(async (req, res) => compare(client, requestProject(res), parse(compareQuery, req.query, 'parameter'))))

  router.get(
    '/traces/:traceId/quality',
    handle(async (req, res) => traceQuality(client, requestProject(res), parse(traceIdSchema, req.params.traceId, 'trace id'))),
  )
  // The traces sharing one session id and the conversation they hold together.
  router.get(
    '/sessions/:sessionId',
    handle(async (req, res) => {
      const project = requestProject(res)
      const sessionId = parse(sessionIdParam, req.params.sessionId, 'session id')
      const found = await session(client, project, sessionId)
      if (!found) throw new ApiError(404, 'NOT_FOUND', `no session ${JSON.stringify(sessionId)} in this project`)
      return found
    }),
  )

  router.get('/status', handle(async (_req, res) => status(client, requestProject(res), options.judgeModel)))
  router.get(
    '/pipeline',
    handle(async () => {
      if (!options.metrics) return { available: false, counters: [] }
      return { available: true, counters: pipelineCounters(await options.metrics()) }
    }),
  )

  router.post(
    '/export',
    json({ limit: '1mb' }),
    handle(async (req, res) => {
      const project = requestProject(res)
      const body = parse(exportBody, req.body ?? {}, 'field')
      if (!options.exporter) throw new ApiError(501, 'EXPORT_UNAVAILABLE', 'no dataset exporter is configured in this Sieve')
      return options.exporter.exportTraces({ projectId: project, traceIds: body.traceIds, note: body.note })
    }),
  )
  return router
}
