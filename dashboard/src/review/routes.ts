import type { Storage } from '@sieve/core'
import { conversationOf, readTrace } from '@sieve/core'
import {
  configuredRules,
  enqueue,
  nextItem,
  queueCounts,
  queueItem,
  type QueueScope,
  readTrust,
  recalibrate,
  rulesHistory,
  rulesInEffect,
  saveRules,
  setSkipped,
  type ReviewSetup,
} from '@sieve/review'
import type { Rubric } from '@sieve/judging'
import { json, Router, type Response } from 'express'
import type { z } from 'zod'
import { ApiError, handle, parse, requestProject, sendError } from '../handlers.js'
import { calibrationView } from './calibration-view.js'
import { labelsJsonl, labelsOf, storeLabels, withdrawLabels } from './labels.js'
import { calibrationQuery, labelBody, labelsExportQuery, nextQuery, queuesQuery, rubricQuery, rulesBody, traceActionBody, type TraceAction } from './params.js'
import { checkLevels, rubricNamed, rubricView } from './rubric-check.js'
import { judgeVerdict } from './verdict.js'

export interface ReviewRoutesOptions {
  client: Storage
  setup: ReviewSetup
}

/** Review bodies are small: a few levels and a note. */
const BODY_LIMIT = '64kb'

/**
 * The review queue's API (`/api/review/...`), behind the dashboard's requireProject: every read and
 * write is the key's project's, a reviewer of one project never reaches another's traces or
 * labels. The judge's verdict on a trace is only ever answered to a label of it (POST labels).
 */
export function createReviewRoutes({ client, setup }: ReviewRoutesOptions): Router {
  const router = Router()
  const rubricOf = (id: string) => rubricNamed(setup.rubrics, id)
  const scopeOf = async (projectId: string, rubric: Rubric, reviewer: string): Promise<QueueScope> => {
    const rules = (await rulesInEffect(client, setup.section, projectId, [rubric.id])).get(rubric.id)!
    return { projectId, rubricId: rubric.id, reviewer, secondLabeller: rules.rules.secondLabeller }
  }
  /** A trace of the key's project's queue, or a 404 that says no more than that (another project's trace included). */
  const inQueue = async (projectId: string, action: TraceAction) => {
    const rubric = rubricOf(action.rubric)
    const item = await queueItem(client, await scopeOf(projectId, rubric, action.reviewer), action.traceId)
    if (!item) throw notQueued(action.traceId, rubric)
    return { rubric, item }
  }
  const notQueued = (traceId: string, rubric: Rubric) => new ApiError(404, 'NOT_FOUND', `trace ${traceId} is not in this project's ${rubric.id} queue`)
  const calibration = (projectId: string, rubric: Rubric) => calibrationView(client, projectId, rubric, setup.calibration, 500)

  /** A GET route: the key's project and the parsed query; a POST route: the parsed body (at most 64 KiB of JSON). */
  const read = <S extends z.ZodType>(path: string, schema: S, fn: (project: string, input: z.output<S>, res: Response) => Promise<unknown>) =>
    router.get(
      path,
      handle(async (req, res) => fn(requestProject(res), parse(schema, req.query, 'parameter'), res)),
    )
  const write = <S extends z.ZodType>(path: string, schema: S, fn: (project: string, input: z.output<S>, res: Response) => Promise<unknown>) =>
    router.post(
      path,
      json({ limit: BODY_LIMIT }),
      handle(async (req, res) => fn(requestProject(res), parse(schema, req.body ?? {}, 'field'), res)),
    )

  read('/queues', queuesQuery, async (project, { reviewer }) => {
    const rules = await rulesInEffect(client, setup.section, project, setup.rubrics.keys())
    const queues = await Promise.all(
      [...setup.rubrics.values()].map(async (rubric) => {
        const inEffect = rules.get(rubric.id)!
        const counts = await queueCounts(client, {
          projectId: project,
          rubricId: rubric.id,
          reviewer: reviewer ?? '',
          secondLabeller: inEffect.rules.secondLabeller,
        })
        return {
          rubric: rubric.id,
          title: rubric.title,
          rules: inEffect,
          items: counts.items,
          open: counts.open,
          ...(reviewer ? { waiting: counts.waiting } : {}),
        }
      }),
    )
    return { queues }
  })

  read('/next', nextQuery, async (project, q) => {
    const rubric = rubricOf(q.rubric)
    const scope = await scopeOf(project, rubric, q.reviewer)
    let found: Awaited<ReturnType<typeof nextItem>>
    if (q.traceId) {
      const item = await queueItem(client, scope, q.traceId)
      if (!item) throw notQueued(q.traceId, rubric)
      found = { item, remaining: (await nextItem(client, scope)).remaining }
    } else found = await nextItem(client, scope)
    const trace = found.item && (await readTrace(client, project, found.item.traceId))
    return {
      rubric: rubricView(rubric),
      remaining: found.remaining,
      item: found.item
        ? { ...found.item, stored: trace !== undefined, rootName: trace ? rootName(trace.spans) : null, conversation: trace ? conversationOf(trace) : null }
        : null,
    }
  })

  write('/labels', labelBody, async (project, body, res) => {
    const rubric = rubricOf(body.rubric)
    checkLevels(rubric, body.labels)
    await inQueue(project, body)
    const stored = await storeLabels(client, project, body)
    await recalibrate(client, project, rubric, setup.calibration)
    const [trust, labels, view] = await Promise.all([
      readTrust(client, project),
      labelsOf(client, project, rubric.id, body.traceId),
      calibration(project, rubric),
    ])
    res.status(201)
    return {
      stored,
      traceId: body.traceId,
      // Shown now that the reviewer's own label is in: beside it, never before it.
      verdict: await judgeVerdict(client, project, rubric.id, body.traceId, trust),
      others: [...labels].filter(([reviewer]) => reviewer !== body.reviewer).map(([reviewer, l]) => ({ reviewer, labels: l.labels, note: l.note })),
      calibration: view,
    }
  })

  write('/skip', traceActionBody, async (project, action) => {
    await inQueue(project, action)
    await setSkipped(client, project, action, true)
    return { skipped: true, traceId: action.traceId }
  })

  write('/undo', traceActionBody, async (project, action) => {
    const { rubric, item } = await inQueue(project, action)
    const withdrawn = await withdrawLabels(client, project, action)
    if (item.skippedByYou) await setSkipped(client, project, action, false)
    if (withdrawn) await recalibrate(client, project, rubric, setup.calibration)
    return { traceId: action.traceId, withdrawn, unskipped: item.skippedByYou, calibration: await calibration(project, rubric) }
  })

  write('/queue', traceActionBody, async (project, action, res) => {
    const rubric = rubricOf(action.rubric)
    // Only a trace of the key's project: its id alone says nothing of whose it is.
    if (!(await readTrace(client, project, action.traceId))) throw new ApiError(404, 'NOT_FOUND', `no trace ${action.traceId} in this project`)
    const rules = (await rulesInEffect(client, setup.section, project, [rubric.id])).get(rubric.id)!
    const added = await enqueue(client, [
      {
        projectId: project,
        rubricId: rubric.id,
        traceId: action.traceId,
        reason: 'manual',
        rulesVersion: rules.version,
        dimensions: [],
        addedBy: action.reviewer,
      },
    ])
    if (added.length) res.status(201)
    return {
      traceId: action.traceId,
      rubric: rubric.id,
      added: added.length > 0,
      ...(added.length ? {} : { why: `already in this project's ${rubric.id} queue: a trace enters a queue once` }),
    }
  })

  read('/rules', rubricQuery, async (project, q) => {
    const rubric = rubricOf(q.rubric)
    const [inEffect, history] = await Promise.all([rulesInEffect(client, setup.section, project, [rubric.id]), rulesHistory(client, project, rubric.id)])
    return { rubric: rubric.id, inEffect: inEffect.get(rubric.id), configured: configuredRules(setup.section, rubric.id), history }
  })

  write('/rules', rulesBody, async (project, body, res) => {
    const rubric = rubricOf(body.rubric)
    const version = await saveRules(client, project, rubric.id, body.rules, body.reviewer)
    res.status(201)
    return { rubric: rubric.id, version, rules: body.rules }
  })

  read('/calibration', calibrationQuery, async (project, q) => calibrationView(client, project, rubricOf(q.rubric), setup.calibration, q.points))

  // JSONL, not JSON: what `sieve judge calibrate --labels` reads.
  router.get('/labels.jsonl', async (req, res: Response) => {
    try {
      const project = requestProject(res)
      const q = parse(labelsExportQuery, req.query, 'parameter')
      if (q.rubric) rubricOf(q.rubric)
      res.type('application/x-ndjson').send(await labelsJsonl(client, project, q.rubric))
    } catch (err) {
      sendError(res, err)
    }
  })
  return router
}

/** The root span's name (the earliest span without a parent), for the page's heading. */
function rootName(spans: readonly { name: string; parentSpanId?: string | undefined; startTimeUnixNano: string }[]): string | null {
  const roots = spans.filter((s) => !s.parentSpanId)
  return (roots[0] ?? spans[0])?.name ?? null
}
