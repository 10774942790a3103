import type { Trace } from '@sieve/core'
import { BudgetLedger, type SliceLimits } from './budget.js'
import type { AskJudge, JudgeClient, JudgeRef } from './client.js'
import type { JudgeConfig } from './config.js'
import { FeedbackIndex } from './feedback-index.js'
import { judgeDimension, judgesFor, toScoreRecords } from './judge-trace.js'
import { JudgeMetrics } from './metrics.js'
import type { Rubric } from './rubric.js'
import { rubricFor } from './rubric-for.js'
import { RANDOM_SLICE, selectingSlices } from './sampling.js'
import type { ScoreSink } from '../scores/score-sink.js'
import { Semaphore } from './semaphore.js'
import type { SliceFacts } from './slices.js'
import { buildTranscript } from './transcript.js'
import { UserHistory } from './user-history.js'
import { traceView } from '../trace/view.js'

/** What the deterministic scorer hands over for every trace it scored. */
export interface JudgeCandidate {
  trace: Trace
  checks: ReadonlyArray<{ name: string; passed: boolean }>
}

export interface JudgeStageDeps {
  config: JudgeConfig
  client: JudgeClient
  rubrics: ReadonlyMap<string, Rubric>
  sink: ScoreSink
  metrics?: JudgeMetrics
  users?: UserHistory
  feedback?: FeedbackIndex
  now?: () => number
}

interface Job {
  trace: Trace
  rubric: Rubric
  slice: string
  calls: number
}

/**
 * The judge behind the deterministic scorer. `offer` decides at once and synchronously whether a
 * trace is judged (sampling, slices, budgets) and queues it; judging happens in the background with
 * bounded concurrency, so the deterministic path never waits for an LLM.
 */
export class JudgeStage {
  readonly metrics: JudgeMetrics
  readonly users: UserHistory
  readonly feedback: FeedbackIndex
  private readonly ledger: BudgetLedger
  private readonly slots: Semaphore
  private readonly calls = new Map<Rubric, number>()
  private readonly queue: Job[] = []
  private active = 0
  private closed = false
  private idle: Array<() => void> = []
  private readonly judge: JudgeRef
  private readonly panel: JudgeRef[] | undefined
  private readonly needsLengthFacts: boolean
  private readonly needsUsers: boolean
  private readonly needsFeedback: boolean

  constructor(private readonly deps: JudgeStageDeps) {
    const { config } = deps
    this.metrics = deps.metrics ?? new JudgeMetrics()
    this.users = deps.users ?? new UserHistory()
    this.feedback = deps.feedback ?? new FeedbackIndex()
    const limits = new Map<string, SliceLimits>(config.sampling.slices.map((s) => [s.name, { ...s.budget, stopAt: s.stopAt }]))
    limits.set(RANDOM_SLICE, { ...config.sampling.budget, stopAt: config.sampling.stopAt })
    this.ledger = new BudgetLedger(config.budgets, limits, deps.now)
    this.slots = new Semaphore(config.concurrency)
    this.judge = { model: config.model, seed: config.seed }
    this.panel = config.panel?.judges.map((j) => ({ model: j.model ?? config.model, seed: j.seed ?? config.seed }))
    // Facts no configured slice reads are not gathered: this runs for every trace the scorer scores.
    const kinds = new Set(config.sampling.slices.map((s) => s.match.kind))
    this.needsLengthFacts = kinds.has('long_conversation')
    this.needsUsers = kinds.has('new_user')
    this.needsFeedback = kinds.has('negative_feedback')
    for (const id of [config.rubrics.default, ...Object.values(config.rubrics.byAgent)]) {
      if (!deps.rubrics.has(id)) throw new Error(`judge: rubric '${id}' is configured but not loaded (known: ${[...deps.rubrics.keys()].join(', ')})`)
    }
  }

  /** By agent name, then service name, as the scorer picks a checks profile. */
  rubricFor(trace: Trace): Rubric {
    return rubricFor(this.deps.config.rubrics, this.deps.rubrics, trace)!
  }

  callsFor(rubric: Rubric): number {
    let calls = this.calls.get(rubric)
    if (calls === undefined) this.calls.set(rubric, (calls = rubric.dimensions.reduce((n, d) => n + judgesFor(d, this.judge, this.panel).length, 0)))
    return calls
  }

  /** Decides and queues; returns the slice that got the trace, or undefined when it is not judged. */
  offer(candidate: JudgeCandidate): string | undefined {
    if (this.closed) return undefined
    const { trace } = candidate
    // The scorer has built (and cached) the trace view already: the length facts cost nothing.
    const view = this.needsLengthFacts ? traceView(trace) : undefined
    const facts: SliceFacts = {
      trace,
      checks: candidate.checks,
      userTurns: view?.userTexts.length ?? 0,
      tokens: view?.llmCalls.reduce((n, c) => n + c.fields.inputTokens + c.fields.outputTokens, 0) ?? 0,
      userTraceIndex: this.needsUsers ? this.users.observe(trace) : undefined,
      lowestFeedback: this.needsFeedback ? this.feedback.lowestFor(trace.projectId, trace.traceId) : undefined,
    }
    const picks = selectingSlices(this.deps.config.sampling, facts)
    if (picks.length === 0) {
      this.metrics.inc('not_sampled')
      return undefined
    }
    const rubric = this.rubricFor(trace)
    const calls = this.callsFor(rubric)
    for (const slice of picks) {
      const reserved = this.ledger.tryReserve(slice, calls)
      if (!reserved.ok) {
        this.metrics.inc('skipped', { slice, reason: reserved.reason })
        continue
      }
      if (this.queue.length >= this.deps.config.queueSize) {
        this.ledger.release(slice, calls)
        this.metrics.inc('skipped', { slice, reason: 'queue_full' })
        return undefined
      }
      this.metrics.inc('sampled', { slice })
      this.queue.push({ trace, rubric, slice, calls })
      this.pump()
      return slice
    }
    return undefined
  }

  private pump(): void {
    // Trace jobs in flight are bounded like calls: enough to keep every call slot busy, no more.
    while (this.active < this.deps.config.concurrency && this.queue.length > 0) {
      const job = this.queue.shift()!
      this.active++
      void this.run(job).finally(() => {
        this.active--
        this.pump()
        if (this.active === 0 && this.queue.length === 0) for (const resolve of this.idle.splice(0)) resolve()
      })
    }
  }

  private async run(job: Job): Promise<void> {
    const transcript = buildTranscript(job.trace)
    const ask: AskJudge = (j, r, d, t) => this.slots.run(() => this.deps.client.judgeDimension(j, r, d, t))
    const results = await Promise.all(job.rubric.dimensions.map((d) => judgeDimension(ask, judgesFor(d, this.judge, this.panel), job.rubric, d, transcript)))
    const records = toScoreRecords({ trace: job.trace, rubric: job.rubric, sampleReason: job.slice }, results)
    for (const r of results) {
      for (const o of r.outcomes) this.ledger.addSpend(o.costUsd)
      if (r.error) this.metrics.inc('dimension_errors', { code: r.error.code })
      if (r.needsReview) this.metrics.inc('needs_review', { dimension: `${job.rubric.id}.${r.dimension.id}` })
    }
    try {
      await this.deps.sink.write(records)
      this.metrics.inc('traces_judged')
    } catch (err) {
      this.metrics.inc('write_errors')
      console.error(`judge: storing scores of trace ${job.trace.traceId} failed: ${(err as Error).message}`)
    }
  }

  /**
   * Stops taking traces from the queue: what waits there is skipped (counted, budget given back);
   * what is being judged finishes and is stored.
   */
  async close(): Promise<void> {
    for (const job of this.queue.splice(0)) {
      this.ledger.release(job.slice, job.calls)
      this.metrics.inc('skipped', { slice: job.slice, reason: 'shutdown' })
    }
    this.closed = true
    await this.drain()
  }

  /** Resolves when everything queued so far has been judged and stored. */
  drain(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve()
    return new Promise((resolve) => this.idle.push(resolve))
  }

  budget() {
    return this.ledger.snapshot()
  }
}
