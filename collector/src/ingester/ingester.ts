import type { ClickHouseClient } from '@clickhouse/client'
import { insertSpans, refreshTraceRollups, type QueuedSpan, type SpanQueue, type Subscription, type TraceKey } from '@sieve/core'
import type { CollectorMetrics } from '../metrics.js'
import { classifyInsertError } from './insertErrors.js'

export interface IngesterOptions {
  queue: SpanQueue
  storage: ClickHouseClient
  metrics?: CollectorMetrics
  /** Consumer group name; one ingester group stores every span once. */
  group?: string
}

export interface Ingester {
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
 * Stores what the queue delivers: one insert per batch into `spans`, then the `traces` rollup
 * of every trace the batch touched is rewritten from the stored spans. Subscribed with
 * `gatesPublish`, so on the embedded queue an OTLP 200 means the insert has committed. A span
 * delivered twice collapses in `spans` (ReplacingMergeTree key) and the rollup counts it once.
 */
export async function startIngester(options: IngesterOptions): Promise<Ingester> {
  const { storage, metrics } = options
  const subscription: Subscription = await options.queue.subscribe({
    group: options.group ?? 'ingester',
    gatesPublish: true,
    onBatch: async (batch) => {
      const traces = touchedTraces(batch)
      let stopTimer = metrics?.insertDuration.startTimer({ table: 'spans' })
      await insertSpans(storage, batch.map((q) => q.span)).catch((err: unknown) => {
        throw classifyInsertError(err)
      })
      stopTimer?.()
      metrics?.insertRows.inc({ table: 'spans' }, batch.length)
      stopTimer = metrics?.insertDuration.startTimer({ table: 'traces' })
      await refreshTraceRollups(storage, traces)
      stopTimer?.()
      metrics?.insertRows.inc({ table: 'traces' }, traces.length)
    },
  })
  return { stop: () => subscription.close() }
}
