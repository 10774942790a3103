import type { Span } from '@sieve/core'
import { InProcessQueue, type InProcessQueueOptions } from '@sieve/queue'

/**
 * The real in-process queue with one publish-gating consumer group standing in for the ingester:
 * it records every span it is handed. `next` decides how the following batch ends (by default it
 * succeeds at once); tests use it to hold a batch or to make storing fail.
 */
export class QueueRecorder {
  readonly spans: Span[] = []
  batches = 0
  private readonly outcomes: Array<() => Promise<void>> = []
  private readonly waiters: Array<() => void> = []

  private constructor(readonly queue: InProcessQueue) {}

  static async start(options: InProcessQueueOptions = {}): Promise<QueueRecorder> {
    const recorder = new QueueRecorder(new InProcessQueue({ lingerMs: 0, ...options, gates: ['store'] }))
    await recorder.queue.subscribe({
      group: 'store',
      onBatch: async (batch) => {
        recorder.batches++
        for (const wake of recorder.waiters.splice(0)) wake()
        await (recorder.outcomes.shift() ?? (async () => {}))()
        recorder.spans.push(...batch.map((queued) => queued.span))
      },
    })
    return recorder
  }

  next(outcome: () => Promise<void>): void {
    this.outcomes.push(outcome)
  }

  /** Resolves once the consumer has been handed `count` batches in total. */
  async batchesSeen(count: number): Promise<void> {
    while (this.batches < count) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }
}
