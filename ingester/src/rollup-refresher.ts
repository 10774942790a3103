import type { Storage } from '@sieve/core'
import { Backoff, refreshTraceRollups, type TraceKey } from '@sieve/core'

export interface RollupRefresherOptions {
  storage: Storage
  /** Most traces rewritten by one statement. */
  maxTracesPerRefresh?: number
  /**
   * Least time between the starts of two rewrites. Rewriting many traces at once reads each
   * touched granule of `spans` once for all of them, so under load gathering for a while costs
   * far less than rewriting after every batch; an idle ingester still rewrites at once.
   */
  minIntervalMs?: number
  retryInitialMs?: number
  retryMaxMs?: number
  onError?: (error: unknown) => void
  /** Told how long each rewrite took and how many traces it covered. */
  onRefresh?: (traces: number, seconds: number) => void
}

/**
 * Keeps the `traces` rollup in step with `spans` off the acknowledgement path: traces touched by
 * stored batches are marked dirty and rewritten from `spans FINAL` by one loop. While a rewrite
 * runs (or `minIntervalMs` has not passed), newly touched traces gather and go into the next one,
 * so under load one statement covers many batches, and when idle a trace is rewritten right
 * after its spans are stored. A failed rewrite keeps its traces dirty and is retried.
 */
export class RollupRefresher {
  private dirty = new Map<string, TraceKey>()
  /** Who waits for a trace's next rewrite (see `mark`). */
  private waiters = new Map<string, (() => void)[]>()
  private running: Promise<void> | undefined
  private readonly maxTraces: number
  private readonly minIntervalMs: number
  private lastStart = -Infinity

  constructor(private readonly options: RollupRefresherOptions) {
    this.maxTraces = options.maxTracesPerRefresh ?? 10_000
    this.minIntervalMs = options.minIntervalMs ?? 2000
  }

  /**
   * Marks traces dirty. The promise resolves once a rewrite that began after this call covered
   * them all; a Kafka ingester commits its offsets only then, so a crash never leaves stored
   * spans without their rollup.
   */
  mark(keys: Iterable<TraceKey>): Promise<void> {
    const done: Promise<void>[] = []
    for (const key of keys) {
      const id = `${key.projectId}\u0000${key.traceId}`
      this.dirty.set(id, key)
      done.push(
        new Promise<void>((resolve) => {
          const list = this.waiters.get(id)
          if (list) list.push(resolve)
          else this.waiters.set(id, [resolve])
        }),
      )
    }
    this.kick()
    return Promise.all(done).then(() => undefined)
  }

  /** Starts the loop unless it runs; traces marked while a finished loop was settling start it again. */
  private kick(): void {
    this.running ??= this.loop().finally(() => {
      this.running = undefined
      if (this.dirty.size > 0) this.kick()
    })
  }

  /** Resolves once every trace marked so far has been rewritten. */
  async flush(): Promise<void> {
    while (this.running) await this.running
  }

  private async loop(): Promise<void> {
    const backoff = new Backoff({ baseMs: this.options.retryInitialMs ?? 100, maxMs: this.options.retryMaxMs ?? 5000 })
    while (this.dirty.size > 0) {
      const wait = this.lastStart + this.minIntervalMs - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      this.lastStart = performance.now()
      const batch = [...this.dirty.entries()].slice(0, this.maxTraces)
      const waiting = new Map<string, (() => void)[]>()
      for (const [id] of batch) {
        this.dirty.delete(id)
        waiting.set(id, this.waiters.get(id) ?? [])
        this.waiters.delete(id)
      }
      const started = performance.now()
      try {
        await refreshTraceRollups(
          this.options.storage,
          batch.map(([, key]) => key),
        )
        this.options.onRefresh?.(batch.length, (performance.now() - started) / 1000)
        for (const resolvers of waiting.values()) for (const resolve of resolvers) resolve()
        backoff.reset()
      } catch (error) {
        this.options.onError?.(error)
        for (const [id, key] of batch) {
          if (!this.dirty.has(id)) this.dirty.set(id, key)
          this.waiters.set(id, [...waiting.get(id)!, ...(this.waiters.get(id) ?? [])])
        }
        await new Promise((resolve) => setTimeout(resolve, backoff.next()))
      }
    }
  }
}
