import type { ClickHouseClient } from '@clickhouse/client'
import { insertDeadLetters, insertSpans, type QueuedSpan, type SpanQueue, type Subscription, type TraceKey } from '@sieve/core'
import type { CollectorMetrics } from '../metrics.js'
import { classifyInsertError } from './insert-errors.js'
import { RollupRefresher } from './rollup-refresher.js'

export interface IngesterOptions {
  queue: SpanQueue
  storage: ClickHouseClient
  metrics?: CollectorMetrics
  /** Consumer group name; one ingester group stores every span once. */
  group?: string
  onError?: (error: unknown) => void
  /**
   * Commit the queue's offsets only once the `traces` rollup covers the batch (Kafka). Kafka
   * keeps the spans, so a crash after the insert but before the rollup replays the batch instead
   * of leaving its traces without a rollup. The embedded queue acknowledges on insert.
   */
  commitAfterRollup?: boolean
}

export interface Ingester {
  /** Resolves once the `traces` rollup covers every span stored so far. */
  flush(): Promise<void>
  /** Handles what is queued, brings the rollup up to date, unsubscribes. */
  stop(): Promise<void>
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
 * Stores what the queue delivers: one insert per batch into `spans`. Subscribed with
 * `gatesPublish`, so on the embedded queue an OTLP 200 means the insert has committed. Spans
 * storage refuses (found by the embedded queue splitting the batch) are written to
 * `dead_letters` under their project; with Kafka they go to the dead-letter topic instead. A span
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
  let ready!: (subscription: Subscription) => void
  const subscribed = new Promise<Subscription>((resolve) => (ready = resolve))
  // Commits run in batch order, each after its rollup, so a commit never passes an unrolled batch.
  let commits = Promise.resolve()
  const commitWhen = (rolled: Promise<void>, batch: QueuedSpan[]) => {
    const next = new Map<number, bigint>()
    for (const q of batch) {
      const after = BigInt(q.offset) + 1n
      if ((next.get(q.partition) ?? -1n) < after) next.set(q.partition, after)
    }
    commits = commits
      .then(() => rolled)
      .then(async () => {
        const subscription = await subscribed
        for (const [partition, offset] of next) await subscription.commit(partition, offset.toString())
      })
      // A partition lost in a rebalance cannot be committed here; its new owner replays from the last commit.
      .catch((error: unknown) => options.onError?.(error))
  }
  const subscription: Subscription = await options.queue.subscribe({
    group: options.group ?? 'ingester',
    gatesPublish: true,
    autoCommit: !commitAfterRollup,
    onBatch: async (batch) => {
      const stopTimer = metrics?.insertDuration.startTimer({ table: 'spans' })
      await insertSpans(storage, batch.map((q) => q.span)).catch((err: unknown) => {
        throw classifyInsertError(err)
      })
      stopTimer?.()
      metrics?.insertRows.inc({ table: 'spans' }, batch.length)
      const rolled = rollups.mark(touchedTraces(batch))
      if (commitAfterRollup) commitWhen(rolled, batch)
    },
    deadLetter: async ({ span }, error) => {
      await insertDeadLetters(storage, [{ span, error: error.message }])
      metrics?.deadLetters.inc({ project: span.projectId })
    },
  })
  ready(subscription)
  return {
    flush: () => rollups.flush(),
    stop: async () => {
      if (commitAfterRollup) {
        await rollups.flush()
        await commits
      }
      await subscription.close()
      await rollups.flush()
    },
  }
}
