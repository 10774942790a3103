import type { Storage } from '@sieve/core'
import { listTraces, readTrace } from '@sieve/core'
import { Router, type Response } from 'express'
import type { z } from 'zod'
import { requireProject } from './require-project.js'
import { securityHeaders } from './security-headers.js'
import { listTracesQuerySchema, traceIdSchema } from './trace-query.js'
import { traceTree } from './trace-tree.js'

export interface TraceRoutesOptions {
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
}

function badRequest(res: Response, error: z.ZodError, where: string): void {
  const message = error.issues
    .map((issue) => {
      const name = issue.path.join('.') || (issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : where)
      return `${name}: ${issue.message}`
    })
    .join('; ')
  res.status(400).json({ error: { code: 'BAD_REQUEST', message } })
}

/** The read API: recent traces from the rollup, and one trace as a span tree. Project-scoped. */
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
    const trace = await readTrace(options.storage, res.locals.projectId as string, traceId.data)
    if (!trace) {
      res.status(404).json({ error: { code: 'NOT_FOUND', message: `no trace ${traceId.data} in this project` } })
      return
    }
    res.json({ trace: traceTree(trace) })
  })

  return router
}
