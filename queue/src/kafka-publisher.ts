import kafkajs, { type Kafka, type Producer } from 'kafkajs'
import { QueueUnavailableError } from '@sieve/core'
import type { PipelineMetrics } from '@sieve/metrics'
import type { SpanRecord } from './span-record.js'
import { sendToEveryPartition, type PartitionedMessage } from './kafka-send.js'
import { ProduceRequestBounds } from './produce-request-bounds.js'

export interface PublisherOptions {
  topic: string
  /** publish() settles within this time; past it the collector answers 503. */
  timeoutMs: number
  /** How long the first waiting publish() lets others join its produce request. */
  lingerMs: number
  /**
   * A produce request closes at this many record bytes, or when one partition's share would pass
   * `maxPartitionBytes` (produce-request-bounds.ts); a larger publish() is split over several
   * requests. A bigger request costs kafkajs less per span.
   */
  maxRequestBytes: number
  maxPartitionBytes: number
  /** The record's partition, from its key (see key-partitioner.ts). */
  partitionOf(key: string): number
  /** After a failure, publish() fails at once for this long instead of piling up requests. */
  failFastMs: number
}

interface Waiter {
  messages: PartitionedMessage[]
  sizes: number[]
  bytes: number
  spans: number
  /** Messages not yet taken into a request, and requests taken but not yet acknowledged. */
  next: number
  unacked: number
  deadline: NodeJS.Timeout
  settled: boolean
  resolve(): void
  reject(err: Error): void
}

/**
 * Collects the records (see span-record.ts) of concurrent publish() calls into one produce request (acks from all
 * in-sync replicas, Snappy-compressed) and resolves each call when Kafka acknowledged its spans
 * (every partition of them: see kafka-send.ts).
 * One request is in flight at a time, which is what keeps the idempotent producer's sequence
 * numbers in order; while it travels the next request fills.
 *
 * After a failed or timed-out request the producer is replaced: a fresh producer id means the
 * broker cannot mistake new records for retries of ones it may or may not have written. The
 * collector answered 503 for those spans, so their senders retry; a span written twice this way
 * collapses in storage (ReplacingMergeTree on project, trace and span id).
 */
export class KafkaPublisher {
  private producer: Producer | undefined
  private connecting: Promise<Producer> | undefined
  private queue: Waiter[] = []
  private flushing = false
  private lingerTimer: NodeJS.Timeout | undefined
  private failedUntil = 0
  private lastError = ''
  private closed = false

  constructor(
    private readonly kafka: Kafka,
    private readonly options: PublisherOptions,
    private readonly metrics: PipelineMetrics,
  ) {}

  /** Resolves once Kafka acknowledged every record; `spans` is how many spans they hold, for the metrics. */
  publish(records: SpanRecord[], spans: number): Promise<void> {
    if (records.length === 0) return Promise.resolve()
    if (this.closed) return Promise.reject(new QueueUnavailableError('the Kafka queue is shut down'))
    if (Date.now() < this.failedUntil) {
      this.metrics.kafkaProduceFailures.inc()
      return Promise.reject(this.unavailable(this.lastError))
    }
    let bytes = 0
    const sizes: number[] = []
    const messages = records.map(({ key, value }): PartitionedMessage => {
      bytes += value.length
      sizes.push(value.length)
      return { key, value, partition: this.options.partitionOf(key) }
    })
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        messages,
        sizes,
        bytes,
        spans,
        next: 0,
        unacked: 0,
        settled: false,
        resolve,
        reject,
        deadline: setTimeout(() => {
          this.settle(waiter, this.unavailable(`Kafka did not acknowledge within ${this.options.timeoutMs} ms`))
        }, this.options.timeoutMs),
      }
      this.queue.push(waiter)
      this.schedule()
    })
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.lingerTimer)
    while (this.flushing || this.queue.length) await new Promise((r) => setTimeout(r, 10))
    await this.producer?.disconnect().catch(() => {})
  }

  private unavailable(reason: string): QueueUnavailableError {
    return new QueueUnavailableError(`Kafka is unavailable: ${reason}`, Math.max(1, Math.ceil(this.options.failFastMs / 1000)))
  }

  private settle(waiter: Waiter, err?: Error): void {
    if (waiter.settled) return
    waiter.settled = true
    clearTimeout(waiter.deadline)
    if (err) {
      this.metrics.kafkaProduceFailures.inc()
      waiter.reject(err)
    } else {
      this.metrics.kafkaProducedSpans.inc(waiter.spans)
      waiter.resolve()
    }
  }

  private schedule(): void {
    if (this.flushing || this.lingerTimer) return
    const queued = this.queue.reduce((n, w) => n + w.bytes, 0)
    if (queued >= this.options.maxRequestBytes || this.options.lingerMs === 0) {
      void this.flush()
    } else {
      this.lingerTimer = setTimeout(() => {
        this.lingerTimer = undefined
        void this.flush()
      }, this.options.lingerMs)
    }
  }

  /** Takes messages in arrival order up to the request and partition bounds, splitting a publish() that does not fit. */
  private takeBatch(): { waiters: Waiter[]; messages: PartitionedMessage[] } {
    const bounds = new ProduceRequestBounds(this.options.maxRequestBytes, this.options.maxPartitionBytes)
    const waiters: Waiter[] = []
    const messages: PartitionedMessage[] = []
    while (this.queue.length) {
      const w = this.queue[0]!
      // A caller that was already told 503 will resend; writing its spans now would only duplicate them.
      if (w.settled) {
        this.queue.shift()
        continue
      }
      const from = w.next
      while (w.next < w.messages.length && bounds.fits(w.sizes[w.next]!, w.messages[w.next]!.partition)) {
        const message = w.messages[w.next]!
        bounds.add(w.sizes[w.next++]!, message.partition)
        messages.push(message)
      }
      if (w.next > from) {
        w.unacked++
        waiters.push(w)
      }
      if (w.next < w.messages.length) break
      this.queue.shift()
    }
    return { waiters, messages }
  }

  private async flush(): Promise<void> {
    if (this.flushing) return
    this.flushing = true
    try {
      for (let batch = this.takeBatch(); batch.messages.length; batch = this.takeBatch()) {
        try {
          await this.withinTimeout(async () => {
            const producer = await this.connect()
            await sendToEveryPartition(producer, {
              topic: this.options.topic,
              acks: -1,
              compression: kafkajs.CompressionTypes.Snappy,
              messages: batch.messages,
            })
          })
          for (const w of batch.waiters) if (--w.unacked === 0 && w.next === w.messages.length) this.settle(w)
        } catch (err) {
          this.lastError = (err as Error).message
          this.failedUntil = Date.now() + this.options.failFastMs
          const error = this.unavailable(this.lastError)
          for (const w of [...batch.waiters, ...this.queue.splice(0)]) this.settle(w, error)
          await this.discardProducer()
        }
      }
    } finally {
      this.flushing = false
    }
    if (this.queue.length) this.schedule()
  }

  /** A broker that accepts connections but never answers must not stall every later request. */
  private async withinTimeout(work: () => Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no acknowledgement within ${this.options.timeoutMs} ms`)), this.options.timeoutMs)
    })
    try {
      await Promise.race([work(), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  private connect(): Promise<Producer> {
    if (this.producer) return Promise.resolve(this.producer)
    this.connecting ??= (async () => {
      const producer = this.kafka.producer({
        idempotent: true,
        maxInFlightRequests: 1,
        // Bounded retries: publish() has its own deadline, and a failure replaces the producer.
        retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 },
      })
      try {
        await producer.connect()
      } catch (err) {
        await producer.disconnect().catch(() => {})
        throw err
      }
      this.producer = producer
      return producer
    })().finally(() => {
      this.connecting = undefined
    })
    return this.connecting
  }

  private async discardProducer(): Promise<void> {
    const producer = this.producer
    this.producer = undefined
    await producer?.disconnect().catch(() => {})
  }
}
