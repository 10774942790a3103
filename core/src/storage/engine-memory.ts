import type { Storage } from './storage.js'

/**
 * The bytes the ClickHouse engine's memory tracker counts now: the statements running, merges and
 * caches. For the embedded engine that is its share of this process's memory, beside V8's heap.
 */
export async function engineMemoryBytes(storage: Storage): Promise<number> {
  const result = await storage.query({ query: "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", format: 'JSONEachRow' })
  const [row] = await result.json<{ value: number | string }>()
  return Number(row?.value ?? 0)
}
