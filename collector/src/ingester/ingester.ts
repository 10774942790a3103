import type { ClickHouseClient } from '@clickhouse/client'
import { insertSpans, type QueuedSpan, type SpanQueue, type Subscription, type TraceKey } from '@sieve/core'
import type { CollectorMetrics } from '../metrics.js'
import { RollupRefresher } from './rollupRefresher.js'

export interface IngesterOptions {
  queue: SpanQueue
  storage: ClickHouseClient
  metrics?: CollectorMetrics
  /** Consumer group name; one ingester group stores every span once. */
  group?: string
  onError?: (error: unknown) => void
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
 * `gatesPublish`, so on the embedded queue an OTLP 200 means the insert has committed. A span
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
  const subscription: Subscription = await options.queue.subscribe({
    group: options.group ?? 'ingester',
    gatesPublish: true,
    onBatch: async (batch) => {
      const stopTimer = metrics?.insertDuration.startTimer({ table: 'spans' })
      await insertSpans(storage, batch.map((q) => q.span))
      stopTimer?.()
      metrics?.insertRows.inc({ table: 'spans' }, batch.length)
      rollups.mark(touchedTraces(batch))
    },
  })
  return {
    flush: () => rollups.flush(),
    stop: async () => {
      await subscription.close()
      await rollups.flush()
    },
  }
}
