import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage } from 'kafkajs'
import { Backoff, UnprocessableSpansError, type QueuedSpan, type SubscribeOptions, type Subscription } from '@sieve/core'
import type { PipelineMetrics } from '@sieve/metrics'
import { decodeSpanRecords, encodeSpanRecord } from './span-record.js'
import type { DeadLetterSink } from './dead-letter.js'
import { BatchCoalescer } from './batch-coalescer.js'

export interface SubscriptionSettings {
  topic: string
  /** First and longest pause after a batch failed (doubling in between). */
  minBackoffMs: number
  maxBackoffMs: number
  sessionTimeoutMs: number
  maxBytesPerPartition: number
  /** Partitions handled at once; their batches are joined into one onBatch call (see BatchCoalescer). */
  concurrentPartitions: number
  /** How long a partition's batch waits for others to join, and the most spans in one onBatch call. */
  coalesceMs: number
  maxBatchSpans: number
}

/**
 * One consumer-group member. Each fetched partition batch is decoded; records that are not
 * spans go to the dead-letter topic; the spans go to `onBatch`. Only when that resolved is the
 * partition's position advanced and (with `autoCommit`) committed. A failed batch pauses its
 * partition for a growing back-off and is fetched again, nothing committed meanwhile. A batch
 * whose member lost the partition in a rebalance is neither advanced nor committed: the new
 * owner starts from the last commit, and storage collapses what it sees twice.
 */
export class KafkaSubscription implements Subscription {
  /** Partitions whose last batch failed, each with its own run of delays. */
  private readonly backoff = new Map<number, Backoff>()
  private readonly resumes = new Set<NodeJS.Timeout>()
  private readonly coalescer: BatchCoalescer<QueuedSpan>

  private constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly settings: SubscriptionSettings,
    private readonly deadLetter: DeadLetterSink,
    private readonly metrics: PipelineMetrics,
  ) {
    this.coalescer = new BatchCoalescer((spans) => this.deliver(spans), settings.coalesceMs, settings.maxBatchSpans)
  }

  static async start(
    kafka: Kafka,
    options: SubscribeOptions,
    settings: SubscriptionSettings,
    deadLetter: DeadLetterSink,
    metrics: PipelineMetrics,
  ): Promise<KafkaSubscription> {
    const consumer = kafka.consumer({
      groupId: options.group,
      sessionTimeout: settings.sessionTimeoutMs,
      heartbeatInterval: Math.max(500, Math.floor(settings.sessionTimeoutMs / 10)),
      rebalanceTimeout: settings.sessionTimeoutMs * 2,
      maxBytesPerPartition: settings.maxBytesPerPartition,
      maxWaitTimeInMs: 200,
      // Bounded: past them the consumer crashes and kafkajs restarts it (CRASH, below), connecting
      // afresh. Endless retries kept a member knocking on a broker that stayed down after its
      // partitions and the group's coordinator had moved (two of three brokers down, one back: the
      // scorer stalled for good in two of six runs of cluster-faults.test.ts). About 10-15 s.
      retry: { retries: 5, initialRetryTime: 300, maxRetryTime: 5000 },
    })
    const subscription = new KafkaSubscription(consumer, options, settings, deadLetter, metrics)
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      const restart = payload.restart ? '; restarting' : ''
      console.error(`sieve: Kafka consumer of group '${options.group}' failed: ${payload.error.message}${restart}`)
    })
    consumer.on(consumer.events.GROUP_JOIN, () => options.onAssigned?.())
    await consumer.connect()
    await consumer.subscribe({ topic: settings.topic, fromBeginning: true })
    await consumer.run({
      partitionsConsumedConcurrently: settings.concurrentPartitions,
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => subscription.handle(payload),
    })
    return subscription
  }

  async commit(offsets: ReadonlyMap<number, string>): Promise<void> {
    if (offsets.size === 0) return
    const { topic } = this.settings
    await this.consumer.commitOffsets([...offsets].map(([partition, offset]) => ({ topic, partition, offset })))
  }

  async close(): Promise<void> {
    for (const timer of this.resumes) clearTimeout(timer)
    await this.consumer.disconnect()
  }

  private async handle({ batch, resolveOffset, heartbeat, isRunning, isStale, pause }: EachBatchPayload): Promise<void> {
    const last = batch.messages.at(-1)
    if (!last || !isRunning() || isStale()) return
    const { partition } = batch
    const group = this.options.group
    // Spans stored, plus records moved to the dead-letter topic (whatever they held).
    let handled = 0
    try {
      const spans: QueuedSpan[] = []
      const poison: { message: KafkaMessage; error: string }[] = []
      for (const message of batch.messages) {
        try {
          const decoded = decodeSpanRecords(message.value)
          const bytes = Math.ceil((message.value?.length ?? 0) / Math.max(1, decoded.length))
          for (const span of decoded) spans.push({ span, partition, offset: message.offset, bytes })
        } catch (err) {
          poison.push({ message, error: (err as Error).message })
        }
      }
      if (poison.length) await this.deadLetter.send(poison.map((p) => this.deadLetterRecord(partition, p.message, p.error)))
      this.metrics.kafkaDeadLetters.inc({ group }, poison.length)
      if (spans.length) await this.whileBeating(heartbeat, this.coalescer.add(spans))
      handled = spans.length + poison.length
    } catch (_err) {
      this.metrics.kafkaBatchFailures.inc({ group })
      const backoff = this.backoff.get(partition) ?? new Backoff({ baseMs: this.settings.minBackoffMs, maxMs: this.settings.maxBackoffMs })
      this.backoff.set(partition, backoff)
      const delay = backoff.next()
      // Not resolving the offsets makes kafkajs fetch this batch again once the partition resumes.
      const resume = pause()
      const timer = setTimeout(() => {
        this.resumes.delete(timer)
        resume()
      }, delay)
      this.resumes.add(timer)
      return
    }
    this.backoff.delete(partition)
    if (!isRunning() || isStale()) return
    resolveOffset(last.offset)
    const next = (BigInt(last.offset) + 1n).toString()
    if (this.options.autoCommit !== false) await this.commit(new Map([[partition, next]]))
    this.metrics.kafkaHandledSpans.inc({ group }, handled)
    this.metrics.kafkaConsumerLag.set({ group, partition: String(partition) }, Math.max(0, Number(BigInt(batch.highWatermark) - BigInt(next))))
    await heartbeat()
  }

  /**
   * kafkajs heartbeats only between batches: a batch whose insert, rollup or replay lookups take
   * longer than the session would cost the member its partitions in the middle of it.
   */
  private async whileBeating<T>(heartbeat: () => Promise<void>, work: Promise<T>): Promise<T> {
    const timer = setInterval(() => void heartbeat().catch(() => {}), Math.max(1000, Math.floor(this.settings.sessionTimeoutMs / 3)))
    try {
      return await work
    } finally {
      clearInterval(timer)
    }
  }

  /**
   * Hands the spans to the subscriber. When it says some of them can never be handled, the
   * batch is halved until the failing spans are alone; those go to the dead-letter topic.
   */
  private async deliver(spans: QueuedSpan[]): Promise<void> {
    try {
      await this.options.onBatch(spans)
    } catch (err) {
      if (!(err instanceof UnprocessableSpansError)) throw err
      if (spans.length === 1) {
        const { span, partition } = spans[0]!
        const offset = recordOffsets.get(spans[0]!) ?? spans[0]!.offset
        await this.deadLetter.send([
          {
            key: span.traceId,
            value: encodeSpanRecord(span),
            headers: this.errorHeaders(partition, offset, err.message),
          },
        ])
        this.metrics.kafkaDeadLetters.inc({ group: this.options.group })
        return
      }
      const half = Math.ceil(spans.length / 2)
      await this.deliver(withoutCutRecord(spans.slice(0, half), spans[half]))
      await this.deliver(spans.slice(half))
    }
  }

  private deadLetterRecord(partition: number, message: KafkaMessage, error: string) {
    return { key: message.key, value: message.value, headers: this.errorHeaders(partition, message.offset, error) }
  }

  private errorHeaders(partition: number, offset: string, error: string): IHeaders {
    return {
      'sieve.error': error,
      'sieve.source.topic': this.settings.topic,
      'sieve.source.partition': String(partition),
      'sieve.source.offset': offset,
      'sieve.consumer.group': this.options.group,
    }
  }
}

/**
 * The first half of a split batch, when the cut runs through a record (a version 2 record holds
 * many spans): that record's spans in it say the offset before it, so whoever commits what this
 * half holds commits up to the record, not past it. The record is handled again after a crash
 * (its stored spans are found and skipped) instead of its other half being lost.
 */
export function withoutCutRecord(first: QueuedSpan[], next: QueuedSpan | undefined): QueuedSpan[] {
  const last = first.at(-1)
  if (!next || !last || last.partition !== next.partition || last.offset !== next.offset) return first
  const before = (BigInt(next.offset) - 1n).toString()
  return first.map((q) => {
    if (q.partition !== next.partition || q.offset !== next.offset) return q
    const moved = { ...q, offset: before }
    recordOffsets.set(moved, recordOffsets.get(q) ?? q.offset)
    return moved
  })
}

/** Where a span moved back by withoutCutRecord really sits, for its dead-letter headers. */
const recordOffsets = new WeakMap<QueuedSpan, string>()
