import type { Storage } from '@sieve/core'
import { insertSpans, type Span } from '@sieve/core'
import { processCpuSeconds, rate } from '../bench-stats.js'

/** Spans per insert, as the ingester's batches under load. */
export const INSERT_BATCH = 8192

export const chunks = <T>(items: readonly T[], size: number): T[][] =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

/**
 * The storage ceiling: Sieve's own insert (`insertSpans`) of the spans straight into the engine
 * in this process, in batches of INSERT_BATCH, as spans/s and spans per CPU-second of this
 * process (the engine's threads included). The table is emptied afterwards: dropping the parts
 * leaves no background merges to compete with what is measured next.
 */
export async function measureStorageCeiling(storage: Storage, spans: readonly Span[]): Promise<{ perSecond: number; perCpuSecond: number }> {
  const started = performance.now()
  const cpuBefore = processCpuSeconds()
  for (const batch of chunks(spans, INSERT_BATCH)) await insertSpans(storage, batch)
  const result = { perSecond: rate(spans.length, performance.now() - started), perCpuSecond: Math.round(spans.length / (processCpuSeconds() - cpuBefore)) }
  await storage.command({ query: 'TRUNCATE TABLE spans' })
  return result
}
