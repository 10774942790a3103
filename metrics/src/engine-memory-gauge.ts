import { Gauge, type Registry } from 'prom-client'

/**
 * `sieve_engine_memory_bytes`: what the embedded engine holds in this process, the term of the
 * memory bound (collector/README.md, Overload) that V8's figures leave out. A scrape reports the
 * value read at the scrape before and starts the next read: the read is a statement, and under
 * overload statements wait for the engine's threads, which a scrape must never do.
 */
export function registerEngineMemoryGauge(registry: Registry, read: () => Promise<number>): void {
  let reading = false
  new Gauge({
    name: 'sieve_engine_memory_bytes',
    help: "Memory the embedded ClickHouse engine's tracker counts (statements, merges, caches), as read at the previous scrape",
    registers: [registry],
    collect() {
      if (reading) return
      reading = true
      read()
        .then((bytes) => this.set(bytes))
        // A failed read (the engine closing, a statement refused) leaves the last value read.
        .catch(() => {})
        .finally(() => {
          reading = false
        })
    },
  })
}
