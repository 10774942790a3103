import type { Storage } from '@sieve/core'
import { ContentReader, conversationOf, listTraces, readTrace, traceSessionId, zodProblems } from '@sieve/core'
import { Router, type Response } from 'express'
import type { z } from 'zod'
import { requireProject } from './require-project.js'
import { securityHeaders } from './security-headers.js'
import { traceIdSchema } from '@sieve/protocol'
import { listTracesQuerySchema } from './trace-query.js'
import { traceTree } from './trace-tree.js'

/** What a role adds to `GET /api/traces/:id` (the dashboard: scores and feedback), read beside the trace. */
export type TraceDetails = (project: string, traceId: string) => Promise<Record<string, unknown>>

export interface TraceRoutesOptions {
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
  details?: TraceDetails
}

function badRequest(res: Response, error: z.ZodError, where: string): void {
  const message = zodProblems(error, { root: where, unknown: 'parameter' }).join('; ')
  res.status(400).json({ error: { code: 'BAD_REQUEST', message } })
}

/**
 * The read API: recent traces from the rollup, and one trace as its span tree, session id and
 * conversation, plus what `details` adds. Project-scoped.
 */
export function createTraceRoutes(options: TraceRoutesOptions): Router {
  const router = Router()
  router.use('/api/traces', securityHeaders(), requireProject(options.apiKeys))

  router.get('/api/traces', async (req, res) => {
    const query = listTracesQuerySchema.safeParse(req.query)
    if (!query.success) return badRequest(res, query.error, 'query')
    const traces = await listTraces(options.storage, res.locals.projectId as string, {
      sinceUnixNano: query.data.since,
      service: query.data.service,
      limit: query.data.limit,
    })
    res.json({ traces })
  })

  router.get('/api/traces/:traceId', async (req, res) => {
    const traceId = traceIdSchema.safeParse(req.params.traceId)
    if (!traceId.success) return badRequest(res, traceId.error, 'traceId')
    const project = res.locals.projectId as string
    const [trace, details] = await Promise.all([readTrace(options.storage, project, traceId.data), options.details?.(project, traceId.data)])
    if (!trace) {
      res.status(404).json({ error: { code: 'NOT_FOUND', message: `no trace ${traceId.data} in this project` } })
      return
    }
    // One reader for the tree's causal order and the conversation: each span's content is parsed once.
    const reader = new ContentReader()
    res.json({ trace: traceTree(trace, reader), sessionId: traceSessionId(trace) || null, conversation: conversationOf(trace, reader), ...details })
  })

  return router
}
