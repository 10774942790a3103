import {
  QueueFullError, QueueUnavailableError,
  type QueuedSpan, type Span, type SpanQueue, type SubscribeOptions, type Subscription,
} from '@sieve/core'

/**
 * The embedded `SpanQueue`: spans wait in memory until every consumer group has handled them.
 *
 * - Bounded: a publish that would take the queue past `capacity` spans fails with QueueFullError
 *   (the receiver answers 429), so a slow store pushes back on clients instead of growing memory.
 * - Group commit: spans of all requests that arrive while a group's handler is busy (or within
 *   `lingerMs`) reach the handler as one batch of at most `maxBatchSpans`.
 * - A group subscribed with `gatesPublish` makes publish() resolve only once it handled the spans.
 * - A failed batch is delivered again after a growing backoff; spans are never dropped. A gated
 *   publish whose batch failed `gateAttempts` times is rejected (503) while the retries go on.
 */
export interface InProcessQueueOptions {
  capacity?: number
  maxBatchSpans?: number
  lingerMs?: number
  retryInitialMs?: number
  retryMaxMs?: number
  gateAttempts?: number
  /** Told of every failed batch, for logs. */
  onError?: (group: string, error: unknown, attempt: number) => void
}

interface Waiter {
  resolve(): void
  reject(error: Error): void
}

interface Entry {
  spans: QueuedSpan[]
  waiter?: Waiter
}

interface Group {
  options: SubscribeOptions
  entries: Entry[]
  depth: number
  busy: boolean
  timer?: NodeJS.Timeout
  idle: Waiter[]
  closed: boolean
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export class InProcessQueue implements SpanQueue {
  private readonly groups = new Map<string, Group>()
  private nextOffset = 0n
  private closed = false
  private readonly capacity: number
  private readonly maxBatchSpans: number
  private readonly lingerMs: number
  private readonly retryInitialMs: number
  private readonly retryMaxMs: number
  private readonly gateAttempts: number

  constructor(private readonly options: InProcessQueueOptions = {}) {
    this.capacity = options.capacity ?? 100_000
    this.maxBatchSpans = options.maxBatchSpans ?? 8192
    this.lingerMs = options.lingerMs ?? 5
    this.retryInitialMs = options.retryInitialMs ?? 100
    this.retryMaxMs = options.retryMaxMs ?? 5000
    this.gateAttempts = options.gateAttempts ?? 3
  }

  /** Spans published but not yet handled by the slowest group. */
  depth(): number {
    let depth = 0
    for (const group of this.groups.values()) depth = Math.max(depth, group.depth)
    return depth
  }

  async publish(spans: Span[]): Promise<void> {
    if (this.closed) throw new QueueUnavailableError('the queue is shutting down')
    if (spans.length === 0) return
    if (this.depth() + spans.length > this.capacity) {
      throw new QueueFullError(`the queue holds ${this.depth()} of ${this.capacity} spans; retry later`)
    }
    const queued = spans.map((span) => ({ span, partition: 0, offset: (this.nextOffset++).toString() }))
    const gates: Promise<void>[] = []
    for (const group of this.groups.values()) {
      const entry: Entry = { spans: queued }
      if (group.options.gatesPublish) {
        gates.push(new Promise<void>((resolve, reject) => { entry.waiter = { resolve, reject } }))
      }
      group.entries.push(entry)
      group.depth += queued.length
      this.schedule(group)
    }
    await Promise.all(gates)
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new QueueUnavailableError('the queue is shutting down')
    if (this.groups.has(options.group)) throw new Error(`consumer group '${options.group}' already has a subscriber in this process`)
    const group: Group = { options, entries: [], depth: 0, busy: false, idle: [], closed: false }
    this.groups.set(options.group, group)
    return {
      // Nothing survives the process, so there is no position to store.
      commit: async () => {},
      close: async () => {
        await this.drain(group)
        group.closed = true
        this.groups.delete(options.group)
      },
    }
  }

  /** Stops taking spans, waits until every group handled what it holds. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.groups.values()].map((g) => this.drain(g)))
    for (const group of this.groups.values()) group.closed = true
    this.groups.clear()
  }

  private drain(group: Group): Promise<void> {
    if (!group.busy && group.entries.length === 0) return Promise.resolve()
    return new Promise((resolve, reject) => group.idle.push({ resolve, reject }))
  }

  private schedule(group: Group): void {
    if (group.busy || group.entries.length === 0) return
    if (group.depth >= this.maxBatchSpans || this.lingerMs === 0) {
      void this.run(group)
      return
    }
    if (group.timer) return
    group.timer = setTimeout(() => {
      group.timer = undefined
      void this.run(group)
    }, this.lingerMs)
  }

  private takeBatch(group: Group): Entry[] {
    const taken: Entry[] = []
    let size = 0
    while (group.entries.length > 0) {
      const next = group.entries[0] as Entry
      if (taken.length > 0 && size + next.spans.length > this.maxBatchSpans) break
      taken.push(group.entries.shift() as Entry)
      size += next.spans.length
    }
    return taken
  }

  private async run(group: Group): Promise<void> {
    if (group.timer) {
      clearTimeout(group.timer)
      group.timer = undefined
    }
    group.busy = true
    while (group.entries.length > 0 && !group.closed) {
      const entries = this.takeBatch(group)
      const batch = entries.flatMap((e) => e.spans)
      await this.deliver(group, batch, entries)
      group.depth -= batch.length
      for (const entry of entries) entry.waiter?.resolve()
    }
    group.busy = false
    for (const waiter of group.idle.splice(0)) waiter.resolve()
  }

  /** Hands the batch to the group until it succeeds, backing off between attempts. */
  private async deliver(group: Group, batch: QueuedSpan[], entries: Entry[]): Promise<void> {
    let delay = this.retryInitialMs
    for (let attempt = 1; ; attempt++) {
      try {
        await group.options.onBatch(batch)
        return
      } catch (error) {
        this.options.onError?.(group.options.group, error, attempt)
        if (attempt === this.gateAttempts) {
          const unavailable = new QueueUnavailableError(`storing spans failed ${attempt} times (${(error as Error).message}); they stay queued and are retried`)
          for (const entry of entries) {
            entry.waiter?.reject(unavailable)
            entry.waiter = undefined
          }
        }
        await sleep(delay)
        delay = Math.min(delay * 2, this.retryMaxMs)
      }
    }
  }
}
