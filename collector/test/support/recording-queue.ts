import type { Span, SpanQueue, Subscription } from '@sieve/core'

/**
 * A SpanQueue that records what it is handed. `next` decides how the next publish ends: by default
 * it resolves at once; tests can make it fail, or hold it until they release it.
 */
export class RecordingQueue implements SpanQueue {
  readonly published: Span[][] = []
  private outcomes: Array<() => Promise<void>> = []
  private waiters: Array<() => void> = []

  /** Makes the next publish end as `outcome` decides (e.g. throw, or wait for a promise). */
  next(outcome: () => Promise<void>): void {
    this.outcomes.push(outcome)
  }

  /** Resolves once `count` publishes have been called in total. */
  async publishCalls(count: number): Promise<void> {
    while (this.published.length < count) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  async publish(spans: Span[]): Promise<void> {
    this.published.push(spans)
    for (const wake of this.waiters.splice(0)) wake()
    await (this.outcomes.shift() ?? (async () => {}))()
  }

  get spans(): Span[] {
    return this.published.flat()
  }

  async subscribe(): Promise<Subscription> {
    throw new Error('RecordingQueue only records publishes')
  }

  async close(): Promise<void> {}
}
