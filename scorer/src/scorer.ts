import type { Storage } from '@sieve/core'
import {
  FIRST_LOOKBACK_MS,
  TimeSlice,
  ProgressRecorder,
  readProgress,
  readTraces,
  tracesArrivedSince,
  withSpanLogEvents,
  type ArrivedTrace,
  type QueuedSpan,
  type SpanEvent,
  type SpanQueue,
  type Subscription,
  type Trace,
} from '@sieve/core'
import { z } from 'zod'
import { assemblerOptionsSchema, TraceAssembler, type ClosedTrace } from './assembler/trace-assembler.js'
import { checkOutcome, scoreTrace, traceScoreRecords, traceView, type ChecksConfig, type ScoreRecord, type ScoreSink, type TraceScore } from '@sieve/scoring'
import type { ScorerMetrics } from './scorer-metrics.js'

/** The `scorer` section of the config file: assembly timing and memory bounds. */
export const scorerOptionsSchema = assemblerOptionsSchema
  .extend({
    /**
     * How often closed traces are scored and offsets committed: each tick is one score write (more
     * only for a backlog), and each write costs the engine the same few parts whatever its size.
     */
    tickMs: z.number().int().positive().default(1000),
    /** Traces scored per score-store write. */
    writeBatchTraces: z.number().int().positive().default(1000),
    /**
     * Spans of closed traces waiting to be scored past which the scorer takes no more spans, so a
     * scorer slower than ingest pushes back (the embedded queue fills and answers 429) instead of
     * holding an ever longer backlog. The queue's own bound, by default.
     */
    maxUnscoredSpans: z.number().int().positive().default(100_000),
    /** The same in what those spans weighed on the wire, for large spans; the queue's own bound, by default. */
    maxUnscoredBytes: z
      .number()
      .int()
      .positive()
      .default(128 * 1024 * 1024),
    group: z.string().min(1).default('scorer'),
  })
  .strict()

export type ScorerOptions = z.output<typeof scorerOptionsSchema>

/** Traces start-up recovery reads back (one statement per project) and restores before scoring what closes. */
const RECOVERY_PAGE_TRACES = 1000
/** Spans added to assembly between two checks of the time slice: about a millisecond of work. */
const ASSEMBLE_SLICE_SPANS = 1024

export interface ScorerDeps {
  queue: SpanQueue
  sink: ScoreSink
  checks: ChecksConfig
  options?: z.input<typeof scorerOptionsSchema>
  metrics?: ScorerMetrics
  /**
   * Completes a trace that closed without its root span from storage (the ingester stored what this
   * scorer no longer holds: after a restart, or for a late span of a long-forgotten trace).
   */
  loadStoredTrace?: (projectId: string, traceId: string) => Promise<Trace | undefined>
  /**
   * The GenAI events stored for these traces' spans that came as log records (core's
   * readSpanLogEvents): the queue carries spans only, so they are joined to each trace before it is
   * scored, and the checks and the judge read the conversation the trace view shows.
   */
  loadLogEvents?: (projectId: string, traceIds: string[]) => Promise<ReadonlyMap<string, SpanEvent[]>>
  /** Told of every trace once its scores are stored (e.g. to offer it to the judge). */
  onScored?: (score: TraceScore, closed: ClosedTrace) => void
  /**
   * The queue keeps nothing across a restart (the embedded one), so the scorer keeps its progress in
   * `storage`: recorded as it goes (`progress`, stage 'scores'), and at start, before any span is
   * taken, the traces whose spans arrived since and that were never scored (or got spans after they
   * were) are read back and restored into assembly (see `recover`). A crash, kill -9 or a stop
   * given up then costs no trace its scores.
   */
  recovery?: { storage: Storage }
  /** Assembler clock (ms; the wall clock unless a test sets it); the quiet period and maximum age are measured on it. */
  now?: () => number
  log?: (message: string) => void
}

/**
 * The deterministic scorer: consumes spans from the queue (own consumer group, manual commits),
 * assembles traces, runs the configured checks on each closed trace, stores the scores, then
 * commits offsets up to the oldest trace not yet stored.
 */
export class Scorer {
  readonly assembler: TraceAssembler
  readonly options: ScorerOptions
  private subscription: Subscription | undefined
  private timer: NodeJS.Timeout | undefined
  private ticking: Promise<number> | undefined
  /** The commit in progress, and whether the assembler moved on since it began (see `commitInBackground`). */
  private committing: Promise<void> | undefined
  private commitAgain = false
  /**
   * Whether assembly took spans, scored traces or failed to commit since the last tick committed: a
   * tick without any commits nothing and reports nothing (idle, the commit and the report were most
   * of the scorer's JavaScript).
   */
  private moved = true
  /** Set once stop() begins: the tick in progress ends after the chunk it is storing, and spans are taken without waiting. */
  private stopping = false
  /** A stop's last tick (Kafka, or `flush`), which runs to its end. */
  private finalTick = false
  /** onBatch calls waiting for the spans to be scored to fall back under the bound (see `room`). */
  private roomWaiters: (() => void)[] = []
  private reportedEvictions = 0
  private reportedLate = 0
  private readonly progress: ProgressRecorder | undefined
  /** When spans last came to assembly (the progress recorder's clock): the scorer has been idle since, once none is unfinished. */
  private lastSpanAt = 0
  /** The clock of assembly and of recorded progress. */
  private readonly now: () => number

  private constructor(private readonly deps: ScorerDeps) {
    this.options = scorerOptionsSchema.parse(deps.options ?? {})
    const { tickMs: _t, writeBatchTraces: _w, maxUnscoredSpans: _u, maxUnscoredBytes: _b, group: _g, ...assembly } = this.options
    this.now = deps.now ?? Date.now
    this.assembler = new TraceAssembler(assembly, deps.now)
    if (deps.recovery) {
      this.progress = new ProgressRecorder({
        storage: deps.recovery.storage,
        stage: 'scores',
        doneBefore: () => this.assembler.unfinishedSince() ?? this.now(),
        lastWorkAt: () => (this.assembler.unfinishedSince() === undefined ? this.lastSpanAt : this.now()),
        onError: (err) => deps.log?.(`scorer: recording progress failed, will retry: ${(err as Error).message}`),
      })
    }
  }

  static async start(deps: ScorerDeps): Promise<Scorer> {
    const scorer = new Scorer(deps)
    if (deps.recovery) await scorer.recover(deps.recovery.storage)
    scorer.subscription = await deps.queue.subscribe({
      group: scorer.options.group,
      autoCommit: false,
      onBatch: async (batch) => {
        await scorer.assemble(batch)
        await scorer.room()
      },
    })
    scorer.progress?.start()
    scorer.scheduleTick(scorer.options.tickMs)
    return scorer
  }

  /**
   * A delivered batch into assembly, in time slices: a batch is up to 8,192 spans in process and
   * 20,000 from Kafka, and added in one go it was a main-thread stretch of 100-300 ms under
   * overload, during which no request or scrape was served. A tick may close traces between two
   * slices; the offsets it commits stay below the spans not yet added (see the assembler's `commitPoints`).
   */
  private async assemble(batch: readonly QueuedSpan[]): Promise<void> {
    this.lastSpanAt = this.now()
    const slice = new TimeSlice()
    for (let from = 0; from < batch.length; from += ASSEMBLE_SLICE_SPANS) {
      this.assembler.add(batch.slice(from, from + ASSEMBLE_SLICE_SPANS))
      this.moved = true
      await slice.yield()
    }
  }

  /**
   * Start-up recovery: the traces whose spans arrived since the recorded progress and that have no
   * deterministic scores, or older ones than their last span, are read back from storage a page at a
   * time and restored into assembly as they were, arrival times included; each page is then scored
   * as the assembler closes it: a trace with its root at once (its quiet period long past), a
   * rootless one as incomplete past its maximum age, a younger rootless one left open for its root.
   * At most `maxOpenTraces` traces a start, `RECOVERY_PAGE_TRACES` at a time; progress is held where
   * the rest begins, for the next start.
   */
  private async recover(storage: Storage): Promise<void> {
    const started = performance.now()
    const since = (await readProgress(storage, 'scores')) ?? Date.now() - FIRST_LOOKBACK_MS
    const max = this.options.maxOpenTraces
    const arrived = await tracesArrivedSince(storage, { sinceMs: since, limit: max + 1, unscored: true })
    const rest = arrived[max]
    if (rest) this.progress!.holdAt(rest.firstArrivalMs)
    const todo = arrived.slice(0, max)
    let scored = 0
    for (let i = 0; i < todo.length; i += RECOVERY_PAGE_TRACES) {
      const page = todo.slice(i, i + RECOVERY_PAGE_TRACES)
      const stored = await readPage(storage, page)
      // As the assembler orders open traces: by last arrival.
      for (const trace of [...page].sort((a, b) => a.lastArrivalMs - b.lastArrivalMs)) {
        const spans = stored.get(`${trace.projectId}\u0000${trace.traceId}`)
        if (spans) this.assembler.restore(spans, trace.firstArrivalMs, trace.lastArrivalMs, trace.scored)
      }
      this.moved = true
      scored += await this.tick()
    }
    if (todo.length === 0) return
    this.deps.metrics?.recovered(todo.length)
    this.deps.log?.(
      `scorer: read back ${todo.length} unscored traces whose spans arrived since the last recorded progress, ` +
        `scored ${scored} in ${Math.round(performance.now() - started)} ms; ${this.assembler.unfinishedTraces} wait for their root or quiet period` +
        (rest ? '; more are left to the next start' : ''),
    )
  }

  /**
   * Backpressure: while more spans of closed traces wait to be scored than `maxUnscoredSpans`, or
   * they weighed more than `maxUnscoredBytes`, the scorer takes no more spans. Its consumer group
   * then falls behind: the embedded queue fills up and the collector answers 429, Kafka keeps the rest. Assembly's memory bounds evict open
   * traces, but closed ones must all be scored: a scorer slower than ingest used to gather them
   * without bound (each tick taking every closed trace at once, the next tick more), the heap
   * growing with the backlog while the queue answered 429.
   */
  private async room(): Promise<void> {
    const { maxUnscoredSpans, maxUnscoredBytes } = this.options
    while (!this.stopping && (this.assembler.unscoredSpans > maxUnscoredSpans || this.assembler.unscoredBytes > maxUnscoredBytes)) {
      await new Promise<void>((resolve) => this.roomWaiters.push(resolve))
    }
  }

  private wakeWaiters(): void {
    for (const wake of this.roomWaiters.splice(0)) wake()
  }

  /**
   * The next tick comes `tickMs` after the previous one started, or at once when it took longer:
   * a fixed interval would skip the beats that fall inside a long tick, and traces that became due
   * meanwhile would wait for the next beat on top of the tick they waited for.
   */
  private scheduleTick(delayMs: number): void {
    const timer = setTimeout(() => {
      const started = Date.now()
      void this.tick().finally(() => {
        if (this.timer === timer) this.scheduleTick(Math.max(0, this.options.tickMs - (Date.now() - started)))
      })
    }, delayMs)
    timer.unref()
    this.timer = timer
  }

  /** Scores every trace that is due, stores the scores, starts their commit. Resolves to the traces scored. */
  tick(): Promise<number> {
    this.ticking ??= this.scoreDue().finally(() => {
      this.ticking = undefined
    })
    return this.ticking
  }

  /**
   * Scores closed traces a write's worth at a time, closing what became due before each: a tick
   * never holds more than one write's traces, and traces keep closing while a backlog is scored
   * (taking them all at once held the whole backlog, and let open traces pile up behind it). The
   * tick goes on only while its writes are full: every write costs the engine a part in `scores`
   * and in each of its rollup views whatever its size, so traces that closed during a partial
   * write wait for the next tick instead of making a write of a few traces each (one sender at a
   * time: score writes back to back were most of the engine's CPU). A stop's last tick drains all.
   * A failed write ends the tick; its traces are handed out again on the next.
   */
  private async scoreDue(): Promise<number> {
    let scored = 0
    while (!this.stopping || this.finalTick) {
      const chunk = this.assembler.takeReady(this.options.writeBatchTraces)
      if (chunk.length > 0) this.moved = true
      if (chunk.length === 0 || !(await this.scoreChunk(chunk))) break
      scored += chunk.length
      this.commitInBackground()
      this.reportAssembly()
      if (chunk.length < this.options.writeBatchTraces && !this.finalTick) break
    }
    if (!this.moved) return 0
    this.moved = false
    this.commitInBackground()
    this.reportAssembly()
    return scored
  }

  private async scoreChunk(chunk: ClosedTrace[]): Promise<boolean> {
    const { sink, checks, metrics, onScored } = this.deps
    const scores: TraceScore[] = []
    const records: ScoreRecord[] = []
    try {
      for (const closed of chunk) {
        if (this.deps.loadStoredTrace && !closed.trace.spans.some((s) => s.parentSpanId === '')) await this.completeFromStorage(closed)
      }
      // Read before scoring, inside the try: a chunk scored without its events would be scored wrong, not late.
      const logged = await this.logEventsOf(chunk).catch((err: Error) => {
        throw new Error(`reading their GenAI events sent as logs failed (nothing scored): ${err.message}`)
      })
      // A chunk of 1,000 traces is seconds of checks under load: scored in slices, so the
      // collector's requests and scrapes are served in between.
      const slice = new TimeSlice()
      for (const closed of chunk) {
        const score = scoreTrace(withSpanLogEvents(closed.trace, logged.get(closed.trace.projectId)), checks)
        scores.push(score)
        for (const record of traceScoreRecords(score)) records.push(record)
        await slice.yield()
      }
      await sink.write(records)
    } catch (err) {
      metrics?.writeFailed()
      this.deps.log?.(`scorer: scores of ${chunk.length} traces not stored, will retry: ${(err as Error).message}`)
      this.assembler.failed(chunk)
      return false
    }
    this.assembler.finished(chunk)
    this.wakeWaiters()
    const storedAtMs = Date.now()
    // Counted per check and outcome first: a labelled counter's inc for each of a chunk's 20,000
    // results was a stretch of the main thread of its own.
    const outcomes = new Map<string, { check: string; outcome: ReturnType<typeof checkOutcome>; n: number }>()
    const slice = new TimeSlice()
    for (const [i, score] of scores.entries()) {
      const closed = chunk[i]!
      if (metrics) {
        const endMs = Number(traceView(score.trace).endNs / 1_000_000n)
        metrics.traceScored(score.trace.complete, closed.rescore, (storedAtMs - endMs) / 1000)
        for (const r of score.results) {
          const outcome = checkOutcome(r)
          const key = `${r.name}\n${outcome}`
          const counted = outcomes.get(key)
          if (counted) counted.n++
          else outcomes.set(key, { check: r.name, outcome, n: 1 })
        }
      }
      onScored?.(score, closed)
      await slice.yield()
    }
    for (const { check, outcome, n } of outcomes.values()) metrics?.checkResult(check, outcome, n)
    return true
  }

  /** The chunk's log events by project (one read per project), none without `loadLogEvents`. */
  private async logEventsOf(chunk: ClosedTrace[]): Promise<Map<string, ReadonlyMap<string, SpanEvent[]>>> {
    const out = new Map<string, ReadonlyMap<string, SpanEvent[]>>()
    const load = this.deps.loadLogEvents
    if (!load) return out
    for (const [projectId, ids] of traceIdsByProject(chunk.map((c) => c.trace))) out.set(projectId, await load(projectId, ids))
    return out
  }

  private async completeFromStorage(closed: ClosedTrace): Promise<void> {
    let stored: Trace | undefined
    try {
      stored = await this.deps.loadStoredTrace!(closed.trace.projectId, closed.trace.traceId)
    } catch (err) {
      this.deps.log?.(`scorer: could not read trace ${closed.trace.traceId} from storage, scoring what arrived: ${(err as Error).message}`)
      return
    }
    if (!stored) return
    const spans = new Map(stored.spans.map((s) => [s.spanId, s]))
    for (const s of closed.trace.spans) spans.set(s.spanId, s)
    closed.trace.spans = [...spans.values()]
    closed.trace.complete = closed.trace.spans.some((s) => s.parentSpanId === '')
  }

  /**
   * Commits the assembler's commit points without holding up scoring. A commit is only a restart
   * position, but kafkajs retries a failing one for seconds, and kafkajs 2.2.4 sends a group's
   * commits to the coordinator it joined until the member rejoins: in a rolling restart of three
   * brokers, ticks that awaited their commits (one partition at a time) left traces unscored for
   * minutes. One commit runs at a time; the points reached meanwhile go in the next.
   */
  private commitInBackground(): void {
    if (this.committing) {
      this.commitAgain = true
      return
    }
    this.committing = this.commit().finally(() => {
      this.committing = undefined
      if (!this.commitAgain) return
      this.commitAgain = false
      this.commitInBackground()
    })
  }

  private async commit(): Promise<void> {
    if (!this.subscription) return
    const points = this.assembler.commitPoints()
    try {
      await this.subscription.commit(points)
      this.assembler.commitEnded(points, true)
    } catch (err) {
      this.assembler.commitEnded(points, false)
      this.moved = true
      this.deps.log?.(`scorer: commit of ${points.size} partitions failed, the next tick commits again: ${(err as Error).message}`)
    }
  }

  /** Resolves once no commit is running or due. */
  private async commitsSettled(): Promise<void> {
    while (this.committing) await this.committing
  }

  private reportAssembly(): void {
    const { metrics } = this.deps
    if (!metrics) return
    const a = this.assembler
    for (; this.reportedEvictions < a.evictions; this.reportedEvictions++) metrics.evicted()
    if (a.lateSpans > this.reportedLate) {
      metrics.lateSpans(a.lateSpans - this.reportedLate)
      this.reportedLate = a.lateSpans
    }
    metrics.openTraces(a.openTraces, a.openSpans, a.openBytes)
    metrics.unscored(a.unscoredSpans, a.unscoredBytes)
  }

  /**
   * Stops the timer, lets the tick in progress end after the chunk it is storing, commits, then
   * stops consuming. Unfinished traces are left unscored and uncommitted: with Kafka the next
   * scorer is delivered them again, and the traces due now are scored first; with `recovery` the
   * next start reads them back from storage, so a stop under a backlog stays short. `flush` scores
   * every trace held now, as it is (for tests and tools).
   */
  async stop({ flush = false }: { flush?: boolean } = {}): Promise<void> {
    if (this.timer) clearTimeout(this.timer)
    this.timer = undefined
    this.stopping = true
    this.wakeWaiters()
    await this.ticking
    this.finalTick = true
    if (flush) this.assembler.closeAll()
    if (flush || !this.deps.recovery) await this.tick()
    await this.commitsSettled()
    await this.subscription?.close()
    this.subscription = undefined
    await this.progress?.stop()
  }
}

/** The spans of a page of traces, read one statement per project, by trace key. */
async function readPage(storage: Storage, page: ArrivedTrace[]): Promise<Map<string, Trace>> {
  const traces = new Map<string, Trace>()
  for (const [projectId, ids] of traceIdsByProject(page)) {
    for (const trace of await readTraces(storage, projectId, ids)) traces.set(`${projectId}\u0000${trace.traceId}`, trace)
  }
  return traces
}

/** Trace ids by project, for reads that take one project a statement. */
function traceIdsByProject(traces: readonly { projectId: string; traceId: string }[]): Map<string, string[]> {
  const byProject = new Map<string, string[]>()
  for (const { projectId, traceId } of traces) {
    const ids = byProject.get(projectId)
    if (ids) ids.push(traceId)
    else byProject.set(projectId, [traceId])
  }
  return byProject
}
