import { Router, json } from 'express'
import type { Storage } from '@sieve/core'
import { loadReviewSetup, type ReviewSetup } from '@sieve/review'
import { requireProject, securityHeaders, type TraceDetails } from '@sieve/http'
import { traceIdSchema } from '@sieve/protocol'
import type { DatasetExporter } from './exporter.js'
import { ApiError, handle, parse, requestProject } from './handlers.js'
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
import { createReviewRoutes } from './review/routes.js'

export { ApiError }

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
  /**
   * The review queues' rules of the config file, the rubrics and the trust rules (judge's
   * loadReviewSetup); without it, the shipped rubrics and the default rules.
   */
  review?: ReviewSetup
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

  router.get(
    '/quality',
    handle(async (req, res) => quality(client, requestProject(res), parse(qualityQuery, req.query, 'parameter'))),
  )
  router.get(
    '/worst',
    handle(async (req, res) => ({ traces: await worst(client, requestProject(res), parse(worstQuery, req.query, 'parameter')) })),
  )
  router.get(
    '/scorecard',
    handle(async (req, res) => scorecard(client, requestProject(res), parse(scorecardQuery, req.query, 'parameter'))),
  )
  router.get(
    '/compare',
    handle(async (req, res) => compare(client, requestProject(res), parse(compareQuery, req.query, 'parameter'))),
  )

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

  router.get(
    '/status',
    handle(async (_req, res) => status(client, requestProject(res), options.judgeModel)),
  )
  router.get(
    '/pipeline',
    handle(async () => {
      if (!options.metrics) return { available: false, counters: [] }
      return { available: true, counters: pipelineCounters(await options.metrics()) }
    }),
  )

  router.use('/review', createReviewRoutes({ client, setup: options.review ?? loadReviewSetup({ sections: {} }) }))

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
