import type { Storage, Trace } from '@sieve/core'
import { bareTrace, storedVerdicts, traceView, type ScoreSink, type Scorecard } from '@sieve/scoring'
import { BudgetLedger, hasDailyLimits } from './budget.js'
import { type JudgeClient, type JudgeConfig, JudgeMetrics, type JudgeRef, judgesFor, type Rubric, rubricFor, type SliceFacts } from '@sieve/judging'
import { FeedbackIndex } from './feedback-index.js'
import type { FeedbackSeen } from './feedback-poller.js'
import { inThreadRunner, judgesOf, type JudgeRunner } from './judge-job.js'
import { JobQueue } from './job-queue.js'
import { JudgeThread } from './judge-thread.js'
import { reopenForFeedback, type LateFeedbackDeps } from './late-feedback.js'
import { hashUnit, lateFeedbackSampling, selectingSlices, sliceLimitsOf } from './sampling.js'
import { SharedBudget, type SharedBudgetOptions } from './shared-budget.js'
import { UserPositions } from './user-positions.js'
import { VerdictRecorder, type Job, type PendingScorecard } from './verdict-recorder.js'

export type { PendingScorecard }

/** What the deterministic scorer hands over for every trace it scored. */
export interface JudgeCandidate {
  trace: Trace
  checks: ReadonlyArray<{ name: string; passed: boolean }>
  /** The trace's position among its user's traces, as UserPositions tells it (consider() looks it up). */
  userTraceIndex?: number | undefined
  /** A judge score for negative feedback is stored for the trace already (consider() looks it up). */
  feedbackJudged?: boolean
  /** The agent's scorecard and the check scores it read: the judge's verdict is added to them. */
  scorecard?: PendingScorecard
}

/** What offer() reads from a trace's view, taken before a storage lookup so the view need not wait with it. */
interface ViewFacts {
  rubric: Rubric
  userTurns: number
  tokens: number
  /** No user or assistant text: nothing for the judge to read. */
  contentMissing: boolean
}

export interface JudgeStageDeps {
  config: JudgeConfig
  /**
   * Judge calls through this client, on this thread (tools, tests with a scripted clock). Without
   * one, the calls run on a worker thread (`JudgeThread`), off the scoring thread.
   */
  client?: JudgeClient
  /** Where judge calls run, shared with other stages (a benchmark's rounds); the stage does not close it. */
  runner?: JudgeRunner
  rubrics: ReadonlyMap<string, Rubric>
  sink: ScoreSink
  metrics?: JudgeMetrics
  /**
   * Where the new-user and negative-feedback slices read what one trace cannot tell: the user's
   * earlier traces, judge scores already stored, traces scored before their feedback came; and
   * where the daily budgets are kept, shared with every other scorer instance and the next start
   * (`judge_budget`). Without it (tests, `sieve judge calibrate`) budgets live in memory.
   */
  storage?: Storage
  /** How often the shared daily budgets are written and read (tests; defaults in SharedBudget). */
  budgetSync?: Pick<SharedBudgetOptions, 'flushMs' | 'refreshMs'>
  feedback?: FeedbackIndex
  /**
   * The scorecard of a trace the scorer did not hand over (late feedback re-opening a stored trace):
   * its check scores are then read from storage.
   */
  scorecardFor?: (trace: Trace) => Scorecard | undefined
  now?: () => number
  /** Where failures the stage recovers from are said (default: stderr). */
  log?: (message: string) => void
}

/** Traces remembered as judged for negative feedback; older ones are checked in the scores table. */
const FEEDBACK_TAKEN_MAX = 100_000

const traceKey = (projectId: string, traceId: string) => `${projectId}\u0000${traceId.toLowerCase()}`

/**
 * The judge behind the deterministic scorer. `offer` decides at once and synchronously whether a
 * trace is judged (sampling, slices, budgets) and queues it; judging happens in the background with
 * bounded concurrency, so the deterministic path never waits for an LLM.
 */
export class JudgeStage {
  readonly metrics: JudgeMetrics
  readonly users: UserPositions | undefined
  readonly feedback: FeedbackIndex
  private readonly ledger: BudgetLedger
  /** The ledger's daily figures in storage; undefined when unshared (no storage or no daily limit). */
  private readonly shared: SharedBudget | undefined
  readonly runner: JudgeRunner
  private readonly ownsRunner: boolean
  private readonly calls = new Map<Rubric, number>()
  private readonly queue: JobQueue<Job>
  private closed = false
  private readonly judge: JudgeRef
  private readonly panel: JudgeRef[] | undefined
  private readonly needsLengthFacts: boolean
  private readonly needsUsers: boolean
  private readonly needsFeedback: boolean
  /** What late feedback is decided by (lateFeedbackSampling). */
  private readonly lateSampling: JudgeConfig['sampling']
  private readonly newUserSlices: JudgeConfig['sampling']['slices']
  /** Traces whose user's history is being looked up. */
  private userLookups = 0
  private readonly late: LateFeedbackDeps | undefined
  /** Traces queued for a negative-feedback slice by this process: never twice for that reason. */
  private readonly feedbackTaken = new Set<string>()
  private readonly feedbackReasons: ReadonlySet<string>
  /** consider() and feedbackArrived() still looking things up in storage; drain() waits for them. */
  private readonly pending = new Set<Promise<unknown>>()

  private readonly log: (message: string) => void

  constructor(private readonly deps: JudgeStageDeps) {
    const { config } = deps
    this.log = deps.log ?? ((message) => console.error(message))
    this.metrics = deps.metrics ?? new JudgeMetrics()
    this.feedback = deps.feedback ?? new FeedbackIndex()
    const limits = sliceLimitsOf(config.sampling)
    // Only daily figures outlive a minute, so only they are kept in storage.
    const shareBudget = deps.storage !== undefined && hasDailyLimits(config.budgets, limits)
    this.ledger = new BudgetLedger(config.budgets, limits, deps.now, shareBudget)
    const judges = judgesOf(config)
    this.judge = judges.judge
    this.panel = judges.panel
    this.ownsRunner = !deps.runner
    this.runner =
      deps.runner ?? (deps.client ? inThreadRunner(deps.client, judges, config.concurrency) : JudgeThread.forConfig(config, deps.rubrics, this.metrics))
    const verdicts = new VerdictRecorder({
      runner: this.runner,
      sink: deps.sink,
      metrics: this.metrics,
      ledger: this.ledger,
      storage: deps.storage,
      scorecardFor: deps.scorecardFor,
      log: this.log,
    })
    this.queue = new JobQueue((job) => verdicts.run(job), config.concurrency, config.queueSize)
    // Facts no configured slice reads are not gathered: this runs for every trace the scorer scores.
    const kinds = new Set(config.sampling.slices.map((s) => s.match.kind))
    this.needsLengthFacts = kinds.has('long_conversation')
    this.needsUsers = kinds.has('new_user')
    this.needsFeedback = kinds.has('negative_feedback')
    this.newUserSlices = config.sampling.slices.filter((s) => s.match.kind === 'new_user')
    const firstTraces = Math.max(0, ...this.newUserSlices.map((s) => (s.match.kind === 'new_user' ? s.match.firstTraces : 0)))
    if (this.needsUsers && !deps.storage) throw new Error("judge: the new_user slice counts a user's traces in storage, and the judge stage was given none")
    this.users = this.needsUsers ? new UserPositions(deps.storage!, firstTraces) : undefined
    this.lateSampling = lateFeedbackSampling(config.sampling)
    this.feedbackReasons = new Set(this.lateSampling.slices.map((s) => s.name))
    this.late = this.lateFeedback()
    for (const id of [config.rubrics.default, ...Object.values(config.rubrics.byAgent)]) {
      if (!deps.rubrics.has(id)) throw new Error(`judge: rubric '${id}' is configured but not loaded (known: ${[...deps.rubrics.keys()].join(', ')})`)
    }
    // Last: its timers start at once, and a stage refused above must leave none behind.
    this.shared = shareBudget ? this.shareDailyBudget(deps.storage!) : undefined
  }

  /** How feedback on a trace scored already re-opens it; none without negative-feedback slices or storage. */
  private lateFeedback(): LateFeedbackDeps | undefined {
    const { storage } = this.deps
    const negative = this.lateSampling.slices
    if (!negative.length || !storage) return undefined
    return {
      storage,
      reasons: [...this.feedbackReasons],
      maxScore: Math.max(...negative.map((s) => (s.match.kind === 'negative_feedback' ? s.match.maxScore : -Infinity))),
      taken: (projectId, traceId) => this.feedbackTaken.has(traceKey(projectId, traceId)),
      offer: (trace, lowest) => {
        const picks = selectingSlices(this.lateSampling, { trace, checks: [], userTurns: 0, tokens: 0, userTraceIndex: undefined, lowestFeedback: lowest })
        // Not picked (the slice's rate): counted as not sampled when it was scored already.
        return picks.length ? this.offerPicks(trace, picks) : undefined
      },
    }
  }

  /** The ledger's daily figures kept in storage, shared with the other instances and the next start. */
  private shareDailyBudget(storage: Storage): SharedBudget {
    return new SharedBudget(storage, this.ledger, {
      ...this.deps.budgetSync,
      onError: (err, doing, again) => {
        this.metrics.inc('budget_sync_errors', { op: doing })
        if (!again)
          this.log(
            `judge: ${doing === 'read' ? "reading the other instances' daily budget use" : "storing this instance's daily budget use"} failed (will retry): ${err.message}`,
          )
      },
    })
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

  /**
   * offer(), once storage has told what the trace's slices need and one trace cannot tell: its
   * position among its user's traces (new-user slice) and, when the user rated it down, whether
   * it was judged for that already (before a restart, say). Without such slices it is offer().
   */
  consider(candidate: JudgeCandidate): Promise<string | undefined> {
    if (this.shared && !this.shared.attempted && !this.closed) {
      // The first moments of a process only: the day's budget use is being read. Deciding before
      // would let a restart spend what the process before it had spent already.
      return this.track(this.shared.loaded.then(() => this.consider(candidate)))
    }
    const { trace } = candidate
    const { storage } = this.deps
    const lowest = this.late ? this.feedback.lowestFor(trace.projectId, trace.traceId) : undefined
    const negative = lowest !== undefined && lowest <= this.late!.maxScore && !this.feedbackTaken.has(this.takenKey(trace))
    const users = this.users && this.mayTakeNewUser(trace) ? this.users : undefined
    if (this.closed || (!users && !negative)) return Promise.resolve(this.offer(candidate))
    if (users) this.userLookups++
    // The scorer's cached view holds the trace's parsed content; kept alive across the lookup it would be
    // promoted out of the young generation and cost the scoring thread a full collection. What offer()
    // needs from it is taken now, and only the spans wait.
    const facts = this.viewFacts(trace)
    const { traceId } = trace
    const waiting = {
      trace: bareTrace(trace),
      checks: candidate.checks.map(({ name, passed }) => ({ name, passed })),
      ...(candidate.scorecard ? { scorecard: candidate.scorecard } : {}),
    }
    const looked = Promise.all([
      users?.positionOf(trace).finally(() => this.userLookups--),
      negative ? storedVerdicts(storage!, trace.projectId, [traceId], this.late!.reasons).then((v) => v.get(traceId.toLowerCase())!.judged) : false,
    ]).then(
      ([userTraceIndex, feedbackJudged]) => this.offer({ ...waiting, userTraceIndex, feedbackJudged }, facts),
      (err: Error) => {
        // Without storage the storage-backed slices cannot decide: they pass, the others still can.
        this.metrics.inc('lookup_errors')
        this.log(`judge: looking up trace ${traceId} in storage failed, its new-user and feedback slices are skipped: ${err.message}`)
        return this.offer({ ...waiting, userTraceIndex: undefined, feedbackJudged: true }, facts)
      },
    )
    return this.track(looked)
  }

  /** Decides and queues; returns the slice that got the trace, or undefined when it is not judged. */
  offer(candidate: JudgeCandidate, view: ViewFacts = this.viewFacts(candidate.trace)): string | undefined {
    if (this.closed) return undefined
    const { trace } = candidate
    const feedbackOpen = this.needsFeedback && !candidate.feedbackJudged && !this.feedbackTaken.has(this.takenKey(trace))
    const facts: SliceFacts = {
      trace,
      checks: candidate.checks,
      userTurns: view.userTurns,
      tokens: view.tokens,
      userTraceIndex: candidate.userTraceIndex,
      lowestFeedback: feedbackOpen ? this.feedback.lowestFor(trace.projectId, trace.traceId) : undefined,
    }
    const picks = selectingSlices(this.deps.config.sampling, facts)
    if (picks.length && view.contentMissing) {
      // Counted against the slice that would have taken it: a sampled trace with nothing to read.
      this.metrics.inc('skipped', { slice: picks[0]!, reason: 'no_content' })
      return undefined
    }
    return this.offerPicks(trace, picks, view.rubric, candidate.scorecard)
  }

  /** The scorer has built (and cached) the trace view already: these cost nothing. */
  private viewFacts(trace: Trace): ViewFacts {
    const view = traceView(trace)
    return {
      rubric: this.rubricFor(trace),
      userTurns: this.needsLengthFacts ? view.userTexts.length : 0,
      tokens: this.needsLengthFacts ? view.llmCalls.reduce((n, c) => n + c.fields.inputTokens + c.fields.outputTokens, 0) : 0,
      contentMissing: view.conversation.contentMissing,
    }
  }

  /**
   * Feedback read from the `feedback` table: remembered for traces still to be scored, and
   * negative feedback on a trace scored already re-opens it for the negative-feedback slices.
   * Resolves once those traces are queued (or turned away); rejects when storage failed, for the
   * poller to read the rows again.
   */
  feedbackArrived(rows: readonly FeedbackSeen[]): Promise<void> {
    for (const r of rows) this.feedback.record(r.projectId, r.traceId, r.lowest)
    if (!this.late || this.closed) return Promise.resolve()
    const late = this.late
    // The first read of feedback (a day back) comes as the process starts: not decided before the day's budget use is known.
    return this.track(
      (this.shared?.loaded ?? Promise.resolve())
        .then(() => reopenForFeedback(late, rows))
        .then((traces) => {
          if (traces.length) this.metrics.inc('reopened', { reason: 'negative_feedback' }, traces.length)
        }),
    )
  }

  /**
   * Whether a new-user slice would take the trace if its user were new: its rate picks the trace
   * and its budget has room for it besides the traces being looked up already. Otherwise the
   * user's history is not worth a query.
   */
  private mayTakeNewUser(trace: Trace): boolean {
    const calls = this.callsFor(this.rubricFor(trace)) * (this.userLookups + 1)
    return this.newUserSlices.some((s) => hashUnit(trace.traceId, s.name) < s.rate && this.ledger.wouldReserve(s.name, calls).ok)
  }

  private takenKey(trace: Trace): string {
    return traceKey(trace.projectId, trace.traceId)
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work)
    const done = () => void this.pending.delete(work)
    work.then(done, done)
    return work
  }

  /** The first of the slices that picked the trace with budget for it gets it. */
  private offerPicks(trace: Trace, picks: string[], rubric?: Rubric, scorecard?: PendingScorecard): string | undefined {
    if (this.closed) return undefined
    if (picks.length === 0) {
      this.metrics.inc('not_sampled')
      return undefined
    }
    rubric ??= this.rubricFor(trace)
    const calls = this.callsFor(rubric)
    for (const slice of picks) {
      const reserved = this.ledger.tryReserve(slice, calls)
      if (!reserved.ok) {
        this.metrics.inc('skipped', { slice, reason: reserved.reason })
        continue
      }
      if (this.queue.full) {
        this.ledger.release(slice, calls)
        this.metrics.inc('skipped', { slice, reason: 'queue_full' })
        return undefined
      }
      this.metrics.inc('sampled', { slice })
      if (this.feedbackReasons.has(slice)) {
        this.feedbackTaken.add(this.takenKey(trace))
        if (this.feedbackTaken.size > FEEDBACK_TAKEN_MAX) this.feedbackTaken.delete(this.feedbackTaken.values().next().value!)
      }
      // The worker thread builds its own view; the scorer's need not wait in the queue.
      this.queue.push({ trace: bareTrace(trace), rubric, slice, calls, scorecard })
      return slice
    }
    return undefined
  }

  /**
   * Stops taking traces from the queue: what waits there is skipped (counted, budget given back);
   * what is being judged finishes and is stored.
   */
  async close(): Promise<void> {
    for (const job of this.queue.takeWaiting()) {
      this.ledger.release(job.slice, job.calls)
      this.metrics.inc('skipped', { slice: job.slice, reason: 'shutdown' })
    }
    this.closed = true
    await this.drain()
    // After the drain: the spend of the calls that finished while closing is in the last write.
    await this.shared?.close()
    if (this.ownsRunner) await this.runner.close()
  }

  /**
   * Resolves once judge calls can start at once: the worker thread has loaded and, with shared
   * budgets, the day's use by earlier processes and other instances has been read.
   */
  async ready(): Promise<void> {
    await Promise.all([this.runner.ready(), this.shared?.loaded])
  }

  /** Writes this instance's budget use of the day and reads the other instances' now (tests, tools). */
  async syncBudget(): Promise<void> {
    await this.shared?.sync()
  }

  /** Resolves when everything offered so far has been judged and stored. */
  async drain(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending])
    return this.queue.idled()
  }

  budget() {
    return this.ledger.snapshot()
  }
}
