import type { SpanQueue, Subscription, Trace } from '@sieve/core'
import { z } from 'zod'
import { assemblerOptionsSchema, TraceAssembler, type ClosedTrace } from './assembler/trace-assembler.js'
import type { ChecksConfig } from './config/checks-config.js'
import { scoreTrace, type TraceScore } from './score-trace.js'
import type { ScorerMetrics } from './scorer-metrics.js'
import { traceScoreRecords } from './scores/score-record.js'
import type { ScoreSink } from './scores/score-sink.js'
import { traceView } from './trace/view.js'

/** The `scorer` section of the config file: assembly timing and memory bounds. */
export const scorerOptionsSchema = assemblerOptionsSchema
  .extend({
    /** How often closed traces are scored and offsets committed. */
    tickMs: z.number().int().positive().default(250),
    /** Traces scored per score-store write. */
    writeBatchTraces: z.number().int().positive().default(1000),
    group: z.string().min(1).default('scorer'),
  })
  .strict()

export type ScorerOptions = z.output<typeof scorerOptionsSchema>

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
  /** Told of every trace once its scores are stored (e.g. to offer it to the judge). */
  onScored?: (score: TraceScore, closed: ClosedTrace) => void
  /** Make `queue.publish()` wait until the scorer holds the spans (embedded queue; for tests and tools). */
  gatePublish?: boolean
  /** Assembler clock (ms); the quiet period and maximum age are measured on it. */
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
  private reportedEvictions = 0
  private reportedLate = 0

  private constructor(private readonly deps: ScorerDeps) {
    this.options = scorerOptionsSchema.parse(deps.options ?? {})
    const { tickMs: _t, writeBatchTraces: _w, group: _g, ...assembly } = this.options
    this.assembler = new TraceAssembler(assembly, deps.now)
  }

  static async start(deps: ScorerDeps): Promise<Scorer> {
    const scorer = new Scorer(deps)
    scorer.subscription = await deps.queue.subscribe({
      group: scorer.options.group,
      autoCommit: false,
      gatesPublish: deps.gatePublish ?? false,
      onBatch: async (batch) => {
        scorer.assembler.add(batch)
      },
    })
    scorer.timer = setInterval(() => void scorer.tick(), scorer.options.tickMs)
    scorer.timer.unref()
    return scorer
  }

  /** Scores every trace that is due, stores the scores, commits offsets. Resolves to the traces scored. */
  tick(): Promise<number> {
    this.ticking ??= this.scoreDue().finally(() => {
      this.ticking = undefined
    })
    return this.ticking
  }

  private async scoreDue(): Promise<number> {
    const due = this.assembler.takeReady()
    let scored = 0
    for (let i = 0; i < due.length; i += this.options.writeBatchTraces) {
      const chunk = due.slice(i, i + this.options.writeBatchTraces)
      if (await this.scoreChunk(chunk)) scored += chunk.length
      else {
        this.assembler.failed(due.slice(i + this.options.writeBatchTraces))
        break
      }
    }
    await this.commit()
    this.reportAssembly()
    return scored
  }

  private async scoreChunk(chunk: ClosedTrace[]): Promise<boolean> {
    const { sink, checks, metrics, onScored } = this.deps
    const scores: TraceScore[] = []
    try {
      for (const closed of chunk) {
        if (this.deps.loadStoredTrace && !closed.trace.spans.some((s) => s.parentSpanId === '')) await this.completeFromStorage(closed)
        scores.push(scoreTrace(closed.trace, checks))
      }
      await sink.write(scores.flatMap(traceScoreRecords))
    } catch (err) {
      metrics?.writeFailed()
      this.deps.log?.(`scorer: storing scores of ${chunk.length} traces failed, will retry: ${(err as Error).message}`)
      this.assembler.failed(chunk)
      return false
    }
    this.assembler.finished(chunk)
    const storedAtMs = Date.now()
    scores.forEach((score, i) => {
      const closed = chunk[i]!
      if (metrics) {
        const endMs = Number(traceView(score.trace).endNs / 1_000_000n)
        metrics.traceScored(score.trace.complete, closed.rescore, (storedAtMs - endMs) / 1000)
        for (const r of score.results) metrics.checkResult(r.name, r.error ? 'error' : r.passed ? 'passed' : 'failed')
      }
      onScored?.(score, closed)
    })
    return true
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

  private async commit(): Promise<void> {
    if (!this.subscription) return
    for (const [partition, offset] of this.assembler.commitPoints()) {
      try {
        await this.subscription.commit(partition, offset)
      } catch (err) {
        this.deps.log?.(`scorer: commit of partition ${partition} at ${offset} failed: ${(err as Error).message}`)
      }
    }
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
    metrics.openTraces(a.openTraces, a.openSpans)
  }

  /**
   * Stops the timer, scores what is due, commits, then stops consuming. Open traces are left
   * unscored and uncommitted, for a durable queue (Kafka) to deliver to the next scorer; with
   * `flush` (the embedded queue, which keeps nothing) they are scored now as they are.
   */
  async stop({ flush = false }: { flush?: boolean } = {}): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.ticking
    if (flush) this.assembler.closeAll()
    await this.tick()
    await this.subscription?.close()
    this.subscription = undefined
  }
}
