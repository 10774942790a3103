import type { Span } from './span.js'

/**
 * The seam between the collector and everything downstream. Two implementations: an in-process
 * queue (embedded default) and Kafka (production). Nothing else knows which one runs.
 *
 * Delivery is at-least-once. A subscriber commits what it has finished; after a crash it is
 * handed again everything after its last commit.
 */
export interface QueuedSpan {
  span: Span
  /** Kafka partition (all spans of a trace share one); 0 in process. */
  partition: number
  /** Position in the partition, as a decimal string. */
  offset: string
  /**
   * What the span weighed on its way in: its share of the OTLP request body that carried it (in
   * process) or of its Kafka record. Free to know, unlike its size in memory (about 2.7 times
   * this), so the byte bounds of the queue and the scorer count it.
   */
  bytes: number
}

/**
 * What every implementation honours when a group subscribes. What differs between queues is not
 * here: it is either stated in `QueueCapabilities` or fixed when the queue is built (which groups a
 * publish waits for, where dead letters go).
 */
export interface SubscribeOptions {
  /** Consumer group: each group sees every span once (at least once). */
  group: string
  /**
   * Called with batches in partition order. When `autoCommit` is true (the default) the batch is
   * committed once the promise resolves; a rejection means "not done": the batch is delivered again,
   * except with UnprocessableSpansError: the queue narrows the batch down to the refused spans and
   * hands each to its dead-letter destination, and the rest counts as handled.
   */
  onBatch(batch: QueuedSpan[]): Promise<void>
  autoCommit?: boolean
  /**
   * This member was assigned its share of the group's partitions: when it joins, and again after
   * every rebalance. Batches from here on may repeat records that another member, or this one
   * before, handled without committing. The embedded queue, one member and one partition per group,
   * says so once, when it subscribes.
   */
  onAssigned?(): void
}

/** A span of a publish that storage could never take and that was kept aside as a dead letter. */
export interface QuarantinedSpan {
  /** Position in the array given to publish(). */
  index: number
  /** Why, fit for the sender: names the problem, never quotes stored data. */
  reason: string
}

/** What became of a publish's spans when some were not stored (a queue whose durability is `handled`). */
export interface PublishOutcome {
  quarantined: QuarantinedSpan[]
}

export interface Subscription {
  /**
   * For `autoCommit: false`: mark everything before each partition's offset as done, all partitions
   * in one request (Kafka retries a failing commit for seconds: one partition at a time multiplied them).
   */
  commit(offsets: ReadonlyMap<number, string>): Promise<void>
  close(): Promise<void>
}

/**
 * What a queue does, stated by every implementation as a fact of the implementation (as an
 * OpenTelemetry Collector component states `consumer.Capabilities`). Callers read it; none probes
 * for methods.
 */
export interface QueueCapabilities {
  /**
   * When publish() resolves. `handled`: the queue holds spans in memory only, so it resolves once
   * the groups it was built to wait for (the one that stores them) handled them, with the spans
   * they dead-lettered in `PublishOutcome`. `acknowledged`: once the queue holds them durably
   * itself (Kafka: every in-sync replica acknowledged), whoever consumes them, whenever. Hence
   * a `handled` queue keeps nothing across a restart, and an `acknowledged` one hands out again
   * after a crash what its groups had not committed.
   */
  readonly durability: 'handled' | 'acknowledged'
  /**
   * Takes an OTLP protobuf request scanned, not decoded, and forwards the sender's bytes
   * (`ForwardingQueue.publishScanned` in @sieve/queue, which names the request's type).
   */
  readonly forwardsProtobuf: boolean
}

export interface SpanQueue {
  readonly capabilities: QueueCapabilities
  /**
   * Resolves once the spans are durable (see `QueueCapabilities.durability`), with the spans that
   * were kept as dead letters instead, if any; rejects with QueueUnavailableError or QueueFullError.
   * `bytes`: the size of the (decompressed) request body that carried them; without it the spans
   * count towards the queue's spans bound only (spans a tool or test made itself).
   */
  publish(spans: Span[], bytes?: number): Promise<PublishOutcome | void>
  /**
   * Why a publish now would only wait too long or be refused for load (full, its oldest span
   * waiting past the bound, or what it holds and the bodies coming in expected to), so the receiver
   * answers 429 before reading the request; undefined when it takes spans. Kafka is never
   * saturated: it pushes back through produce timeouts instead (503).
   */
  saturated(incoming?: IncomingBodies): Saturation | undefined
  /**
   * Why spans published now would not become durable though the queue takes them (for readiness):
   * on a `handled` queue, a group it waits for failing attempt after attempt (storage down).
   * Undefined otherwise; always on an `acknowledged` queue, which holds spans whatever consumes them.
   */
  stalled(): string | undefined
  subscribe(options: SubscribeOptions): Promise<Subscription>
  close(): Promise<void>
}

/** Request bodies taken and not yet published, as the receiver asks about one more. */
export interface IncomingBodies {
  /** Their bytes as sent, the asking request's included. */
  bytes: number
  /** The asking request's (its Content-Length; 0 when it names none). */
  asking: number
}

export interface Saturation {
  reason: 'queue_full' | 'queue_wait'
  /** Said to the sender. */
  message: string
}

/** The queue cannot take data now; the collector answers 503 with Retry-After. */
export class QueueUnavailableError extends Error {
  readonly code = 'QUEUE_UNAVAILABLE'
  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
  ) {
    super(message)
  }
}

/** The queue is full; the collector answers 429 with Retry-After. */
export class QueueFullError extends Error {
  readonly code = 'QUEUE_FULL'
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(message)
  }
}

/**
 * A subscriber rejects a batch with this when the data itself cannot be handled (the database
 * refuses a row), so retrying cannot help. The queue narrows the batch down to the spans that
 * fail and moves them, with this message, to its dead-letter destination (Kafka: the dead-letter
 * topic; embedded: the `deadLetters` it was built with, else they are retried like any failure);
 * any other rejection means "not now" and the batch is delivered again after a back-off.
 */
export class UnprocessableSpansError extends Error {
  readonly code = 'SPANS_UNPROCESSABLE'
  /**
   * @param message the full error, for logs and the dead letter: it may quote the refused row.
   * @param reason the same for the sender, naming the problem without any data.
   */
  constructor(
    message: string,
    readonly reason = 'storage cannot take it',
  ) {
    super(message)
  }
}

/** What a queue that keeps spans in memory holds, for its gauges: spans, and the bytes they came in. */
export interface QueueHeld {
  depth(): number
  bytes(): number
}
