import type { Storage } from '@sieve/core'
import { countedInsert, type PipelineMetrics } from '@sieve/metrics'
import {
  FIRST_LOOKBACK_MS,
  insertDeadLetters,
  insertSpans,
  ProgressRecorder,
  readProgress,
  refreshTraceRollups,
  tracesArrivedSince,
  type QueuedSpan,
  type SpanQueue,
  type UnprocessableSpansError,
  type Subscription,
  type TraceKey,
} from '@sieve/core'
import { classifyInsertError } from './insert-errors.js'
import { lastOffsets, ReplayGuard } from './replay-guard.js'
import { RollupRefresher } from './rollup-refresher.js'

export interface IngesterOptions {
  queue: SpanQueue
  storage: Storage
  metrics?: PipelineMetrics
  /** Consumer group name (default `INGESTER_GROUP`); one ingester group stores every span once. */
  group?: string
  onError?: (error: unknown) => void
  /**
   * Commit the queue's offsets only once the `traces` rollup covers the batch (Kafka). Kafka
   * keeps the spans, so a crash after the insert but before the rollup replays the batch instead
   * of leaving its traces without a rollup; spans of a replayed batch that are already stored
   * are not inserted again (replay-guard.ts). The embedded queue acknowledges on insert.
   */
  commitAfterRollup?: boolean
  /**
   * The queue keeps nothing across a restart (the embedded one), so the rollup's progress is kept
   * in storage: recorded as it goes (`progress`, stage 'rollup'), and at start, before any new span
   * is taken, the rollup of every trace whose spans arrived since is rewritten (at most
   * `RECOVERY_MAX_TRACES`). Spans are acknowledged on insert: without this a kill -9 between the
   * insert and the rewrite leaves their traces out of `traces` for good.
   */
  recover?: boolean
  /** Told what start-up recovery did. */
  log?: (message: string) => void
}

export interface Ingester {
  /** Resolves once the `traces` rollup covers every span stored so far. */
  flush(): Promise<void>
  /** Handles what is queued, brings the rollup up to date, unsubscribes. */
  stop(): Promise<void>
}

/**
 * The ingester's consumer group by default: the group the embedded queue is built to wait for
 * (`InProcessQueueOptions.gates`), so that there an OTLP 200 means the insert has committed.
 */
export const INGESTER_GROUP = 'ingester'

/**
 * The embedded queue's dead letters (`InProcessQueueOptions.deadLetters`): each span storage
 * refused on its own goes to `dead_letters` under its project, as Kafka's go to the dead-letter topic.
 */
export const storeDeadLetters =
  (storage: Storage, metrics?: PipelineMetrics) =>
  async ({ span }: QueuedSpan, error: UnprocessableSpansError): Promise<void> => {
    await insertDeadLetters(storage, [{ span, error: error.message }])
    metrics?.deadLetters.inc({ project: span.projectId })
  }

/** Most traces whose rollup one start rewrites (in statements of 2,000); the rest is left to the next start. */
export const RECOVERY_MAX_TRACES = 100_000

/**
 * Inserts whose traces no rollup rewrite has covered yet, by the time each began: every span stored
 * before the oldest of them is in the rollup. The engine stamps `ingested_at` during the insert, so
 * never before its beginning.
 */
class Uncovered {
  private next = 0
  private readonly began = new Map<number, number>()
  private lastCovered = 0

  /** An insert begins; the function says its traces are in the rollup (or that it failed). */
  begin(): () => void {
    const id = this.next++
    this.began.set(id, Date.now())
    return () => {
      this.began.delete(id)
      this.lastCovered = Date.now()
    }
  }

  /** Now while an insert is uncovered, else when the last one was covered: every span was stored before it. */
  lastWorkAt(): number {
    return this.began.size > 0 ? Date.now() : this.lastCovered
  }

  doneBefore(): number {
    let oldest = Date.now()
    for (const at of this.began.values()) oldest = Math.min(oldest, at)
    return oldest
  }
}

/**
 * Start-up recovery: rewrites the rollup of the traces whose spans arrived since the recorded
 * progress. Rewriting a trace whose row was already right changes nothing, so the recorded time
 * need only be early enough. Past the bound, progress is held where the rest begins.
 */
async function recoverRollups(storage: Storage, progress: ProgressRecorder): Promise<{ traces: number; left: boolean }> {
  const since = (await readProgress(storage, 'rollup')) ?? Date.now() - FIRST_LOOKBACK_MS
  const arrived = await tracesArrivedSince(storage, { sinceMs: since, limit: RECOVERY_MAX_TRACES + 1 })
  const todo = arrived.slice(0, RECOVERY_MAX_TRACES)
  await refreshTraceRollups(storage, todo)
  const rest = arrived[RECOVERY_MAX_TRACES]
  if (rest) progress.holdAt(rest.firstArrivalMs)
  return { traces: todo.length, left: rest !== undefined }
}

function touchedTraces(batch: QueuedSpan[]): TraceKey[] {
  const seen = new Map<string, TraceKey>()
  for (const { span } of batch) {
    const id = `${span.projectId}\u0000${span.traceId}`
    if (!seen.has(id)) seen.set(id, { projectId: span.projectId, traceId: span.traceId })
  }
  return [...seen.values()]
}

/**
 * Stores what the queue delivers: one insert per batch into `spans`. The embedded queue waits for
 * this group (`INGESTER_GROUP`), so there an OTLP 200 means the insert has committed. Spans
 * storage refuses are rejected with UnprocessableSpansError and go to the queue's dead letters
 * (embedded: `storeDeadLetters`, into `dead_letters`; Kafka: the dead-letter topic). A span
 * delivered twice collapses in `spans` (ReplacingMergeTree on its identity, FINAL in reads); the
 * `traces` rollup of touched traces is rewritten from `spans FINAL` right after, off the
 * acknowledgement path, so it counts every distinct span once.
 */
export async function startIngester(options: IngesterOptions): Promise<Ingester> {
  const { storage, metrics } = options
  const rollups = new RollupRefresher({
    storage,
    onError: options.onError,
    onRefresh: (traces, seconds) => {
      metrics?.insertDuration.observe({ table: 'traces' }, seconds)
      metrics?.insertRows.inc({ table: 'traces' }, traces)
    },
  })
  const commitAfterRollup = options.commitAfterRollup ?? false
  const group = options.group ?? INGESTER_GROUP
  const replays = commitAfterRollup ? new ReplayGuard(storage, group) : undefined
  const uncovered = options.recover ? new Uncovered() : undefined
  const progress = uncovered
    ? new ProgressRecorder({
        storage,
        stage: 'rollup',
        doneBefore: () => uncovered.doneBefore(),
        lastWorkAt: () => uncovered.lastWorkAt(),
        onError: options.onError,
      })
    : undefined
  if (progress) {
    const started = performance.now()
    const { traces, left } = await recoverRollups(storage, progress)
    if (traces > 0) {
      options.log?.(
        `ingester: rewrote the rollup of ${traces} traces whose spans arrived since the last recorded progress ` +
          `in ${Math.round(performance.now() - started)} ms${left ? '; more are left to the next start' : ''}`,
      )
    }
  }
  let ready!: (subscription: Subscription) => void
  const subscribed = new Promise<Subscription>((resolve) => (ready = resolve))
  // Commits run in batch order, each after its rollup, so a commit never passes an unrolled batch.
  let commits = Promise.resolve()
  const commitWhen = (rolled: Promise<void>, batch: QueuedSpan[]) => {
    const last = lastOffsets(batch)
    commits = commits
      .then(() => rolled)
      .then(async () => {
        const subscription = await subscribed
        await subscription.commit(new Map([...last].map(([partition, offset]) => [partition, (offset + 1n).toString()])))
      })
      // A partition lost in a rebalance cannot be committed here; its new owner replays from the last commit.
      .catch((error: unknown) => options.onError?.(error))
  }
  const subscription: Subscription = await options.queue.subscribe({
    group,
    autoCommit: !commitAfterRollup,
    onBatch: async (batch) => {
      const admitted = replays ? await replays.admit(batch) : { insert: batch, replayed: 0 }
      const covered = uncovered?.begin()
      await countedInsert(metrics, 'spans', admitted.insert.length, () =>
        insertSpans(
          storage,
          admitted.insert.map((q) => q.span),
        ).catch((err: unknown) => {
          covered?.()
          throw classifyInsertError(err)
        }),
      )
      replays?.inserted(batch)
      metrics?.kafkaReplayedSpans.inc(admitted.replayed)
      const rolled = rollups.mark(touchedTraces(batch))
      if (covered) void rolled.then(covered)
      if (commitAfterRollup) commitWhen(rolled, batch)
    },
    onAssigned: () => replays?.reassigned(),
  })
  ready(subscription)
  progress?.start()
  return {
    flush: () => rollups.flush(),
    stop: async () => {
      if (commitAfterRollup) {
        await rollups.flush()
        await commits
      }
      await subscription.close()
      await rollups.flush()
      await progress?.stop()
    },
  }
}
