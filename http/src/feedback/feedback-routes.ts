import { randomUUID } from 'node:crypto'
import type { Storage } from '@sieve/core'
import { insertFeedback, wellFormed, zodProblems } from '@sieve/core'
import { feedbackSchema } from '@sieve/protocol'
import express, { Router, type ErrorRequestHandler } from 'express'
import { requireProject } from '../api/require-project.js'

export interface FeedbackRoutesOptions {
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
}

const MAX_FEEDBACK_BYTES = 64 * 1024

/**
 * `POST /v1/feedback`: a user's judgement of a trace, sent by the SDK's `feedback()`. Same API-key
 * auth and project scoping as ingest. 201 with the feedback id once stored.
 */
export function createFeedbackRoutes(options: FeedbackRoutesOptions): Router {
  const router = Router()
  router.post('/v1/feedback', requireProject(options.apiKeys), express.json({ limit: MAX_FEEDBACK_BYTES, type: () => true }), async (req, res) => {
    const parsed = feedbackSchema.safeParse(req.body)
    if (!parsed.success) {
      const message = zodProblems(parsed.error, { root: 'body' }).join('; ')
      res.status(400).json({ error: { code: 'BAD_REQUEST', message } })
      return
    }
    // Repaired here, not in the row: the answer names the id as stored (see insertFeedback).
    const feedbackId = wellFormed(parsed.data.feedbackId ?? randomUUID())
    await insertFeedback(options.storage, res.locals.projectId as string, { ...parsed.data, feedbackId })
    res.status(201).json({ feedbackId })
  })
  // Body-parser errors (invalid JSON, too large) carry their HTTP status; answer them here as JSON.
  const onBodyError: ErrorRequestHandler = (err, _req, res, next) => {
    const status = (err as { status?: number }).status
    if (status === 400 || status === 413 || status === 415) {
      res.status(status).json({ error: { code: status === 413 ? 'TOO_LARGE' : 'BAD_REQUEST', message: `feedback body: ${(err as Error).message}` } })
      return
    }
    next(err)
  }
  router.use('/v1/feedback', onBodyError)
  return router
}
