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
}

export interface SubscribeOptions {
  /** Consumer group: each group sees every span once (at least once). */
  group: string
  /**
   * Called with batches in partition order. When `autoCommit` is true (the default) the batch is
   * committed once the promise resolves; a rejection means "not done": the batch is delivered again.
   */
  onBatch(batch: QueuedSpan[]): Promise<void>
  autoCommit?: boolean
  /**
   * Embedded queue only: publish() resolves only after this group has handled the spans. The
   * ingester sets it so an HTTP 200 means "stored"; Kafka makes spans durable on its own.
   */
  gatesPublish?: boolean
  /**
   * Embedded queue only: where a span goes that this group refused, alone, with
   * UnprocessableSpansError (the batch is split until the failing spans are alone). Once it
   * resolved the span counts as handled, and a gated publish reports it in `PublishOutcome`.
   * Without it such spans are retried like any failure. Kafka moves them to its dead-letter topic.
   */
  deadLetter?(span: QueuedSpan, error: UnprocessableSpansError): Promise<void>
  /**
   * Kafka only: the group's partitions were assigned anew. Batches from here on may repeat
   * records that another member, or this one before, handled without committing.
   */
  onReassigned?(): void
}

/** A span of a publish that storage could never take and that was kept aside as a dead letter. */
export interface QuarantinedSpan {
  /** Position in the array given to publish(). */
  index: number
  /** Why, fit for the sender: names the problem, never quotes stored data. */
  reason: string
}

/** What became of a publish's spans when some were not stored (embedded queue only). */
export interface PublishOutcome {
  quarantined: QuarantinedSpan[]
}

export interface Subscription {
  /** For `autoCommit: false`: mark everything before `offset` in `partition` as done. */
  commit(partition: number, offset: string): Promise<void>
  close(): Promise<void>
}

export interface SpanQueue {
  /**
   * Resolves once the spans are durable (see `gatesPublish`), with the spans that were kept as
   * dead letters instead, if any; rejects with QueueUnavailableError or QueueFullError.
   */
  publish(spans: Span[]): Promise<PublishOutcome | void>
  /**
   * Why a publish now would only wait too long or be refused for load (full, or its oldest span
   * waiting past the bound), so the receiver answers 429 before reading the request; undefined when
   * it takes spans. The embedded queue's; Kafka pushes back through produce timeouts instead.
   */
  saturated?(): Saturation | undefined
  subscribe(options: SubscribeOptions): Promise<Subscription>
  close(): Promise<void>
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
 * fail and moves them, with this message, to the dead-letter topic; any other rejection means
 * "not now" and the batch is delivered again after a back-off.
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
