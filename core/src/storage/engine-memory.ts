import { readRows } from './read-rows.js'
import type { Storage } from './storage.js'

/**
 * The bytes the ClickHouse engine's memory tracker counts now: the statements running, merges and
 * caches. For the embedded engine that is its share of this process's memory, beside V8's heap.
 */
export async function engineMemoryBytes(storage: Storage): Promise<number> {
  const [row] = await readRows<{ value: number }>(storage, "SELECT value FROM system.metrics WHERE metric = 'MemoryTracking'", {})
  return row?.value ?? 0
}
