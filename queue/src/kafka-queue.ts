import type kafkajs from 'kafkajs'
import type { Config, QueueCapabilities, Saturation, Span, SubscribeOptions, Subscription } from '@sieve/core'
import type { ScannedRequest } from '@sieve/otlp'
import { createPipelineMetrics, type PipelineMetrics } from '@sieve/metrics'
import type { ForwardingQueue } from './forwarding-queue.js'
import { KafkaPublisher, type PublisherOptions } from './kafka-publisher.js'
import { encodeSpanRecords, encodeTraceRecords } from './span-record.js'
import { keyPartitioner } from './key-partitioner.js'
import { MAX_PARTITION_BYTES, MAX_REQUEST_BYTES } from './produce-request-bounds.js'
import { KafkaSubscription, type SubscriptionSettings } from './kafka-subscription.js'
import { DeadLetterSink } from './dead-letter.js'
import { ensureTopics, partitionCount } from './kafka-topics.js'
import { kafkaClient, type KafkaSettings } from './kafka-client.js'

export type { KafkaSettings }

export interface KafkaQueueOptions {
  kafka: KafkaSettings
  publish?: Partial<PublisherOptions>
  consume?: Partial<Omit<SubscriptionSettings, 'topic'>>
  /** The process's metrics (served at /metrics); a private set when absent. */
  metrics?: PipelineMetrics
  /** Create missing topics at start (default true); otherwise start-up fails saying how to create them. */
  createTopics?: boolean
  logLevel?: Config['logLevel']
}

/**
 * The production `SpanQueue`: spans go to a Kafka topic keyed by trace id, consumer groups read
 * them. See kafka-publisher.ts for when publish() resolves and kafka-subscription.ts for how
 * offsets are committed. Start it with `openKafkaQueue`, which also sets up the topics.
 */
export class KafkaSpanQueue implements ForwardingQueue {
  readonly capabilities = { durability: 'acknowledged', forwardsProtobuf: true } as const satisfies QueueCapabilities
  private readonly subscriptions = new Set<Subscription>()

  private constructor(
    private readonly client: kafkajs.Kafka,
    private readonly options: KafkaQueueOptions,
    private readonly publisher: KafkaPublisher,
    private readonly metrics: PipelineMetrics,
    private readonly deadLetters: DeadLetterSink,
  ) {}

  static async open(options: KafkaQueueOptions): Promise<KafkaSpanQueue> {
    const { kafka } = options
    const client = kafkaClient(kafka, options.logLevel)
    const admin = client.admin()
    let partitions: number
    let deadLetterPartitions: number
    try {
      await admin.connect()
      const specs = [
        { topic: kafka.spansTopic, partitions: kafka.partitions, replicationFactor: kafka.replicationFactor, minInsyncReplicas: kafka.minInsyncReplicas },
        { topic: kafka.deadLetterTopic, partitions: 1, replicationFactor: kafka.replicationFactor, minInsyncReplicas: kafka.minInsyncReplicas },
      ]
      await ensureTopics(admin, specs, kafka.brokers, options.createTopics ?? true)
      partitions = await partitionCount(admin, kafka.spansTopic)
      deadLetterPartitions = await partitionCount(admin, kafka.deadLetterTopic)
    } finally {
      await admin.disconnect().catch(() => {})
    }
    const metrics = options.metrics ?? createPipelineMetrics()
    const publisher = new KafkaPublisher(
      client,
      {
        topic: kafka.spansTopic,
        timeoutMs: 5000,
        lingerMs: 2,
        maxRequestBytes: MAX_REQUEST_BYTES,
        maxPartitionBytes: MAX_PARTITION_BYTES,
        partitionOf: keyPartitioner(kafka.spansTopic, partitions),
        failFastMs: 1000,
        ...options.publish,
      },
      metrics,
    )
    // One producer for every subscription's dead letters, connected on the first (dead-letter.ts).
    const deadLetters = new DeadLetterSink(
      client.producer({ idempotent: true, maxInFlightRequests: 1 }),
      kafka.deadLetterTopic,
      keyPartitioner(kafka.deadLetterTopic, deadLetterPartitions),
    )
    return new KafkaSpanQueue(client, options, publisher, metrics, deadLetters)
  }

  /** The request's size is not needed: the broker holds the spans, not this process. */
  publish(spans: Span[]): Promise<void> {
    return this.publisher.publish(encodeSpanRecords(spans), spans.length)
  }

  /** Never: a broker that cannot keep up fails produce requests, and publish() rejects (503). */
  saturated(): Saturation | undefined {
    return undefined
  }

  /** Never: what Kafka acknowledged is durable whatever its consumers do (their lag is on /metrics). */
  stalled(): string | undefined {
    return undefined
  }

  /** The spans of an OTLP protobuf request, forwarded as the sender's bytes: one record per trace. */
  publishScanned(request: ScannedRequest): Promise<void> {
    return this.publisher.publish(encodeTraceRecords(request), request.traceIds.length)
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const subscription = await KafkaSubscription.start(
      this.client,
      options,
      {
        topic: this.options.kafka.spansTopic,
        minBackoffMs: 250,
        maxBackoffMs: 30_000,
        sessionTimeoutMs: this.options.kafka.sessionTimeoutMs,
        maxBytesPerPartition: 4 * 1024 * 1024,
        concurrentPartitions: 6,
        coalesceMs: 20,
        maxBatchSpans: 20_000,
        ...this.options.consume,
      },
      this.deadLetters,
      this.metrics,
    )
    const closeOne = subscription.close.bind(subscription)
    this.subscriptions.add(subscription)
    return {
      commit: (offsets) => subscription.commit(offsets),
      close: async () => {
        this.subscriptions.delete(subscription)
        await closeOne()
      },
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()))
    this.subscriptions.clear()
    await this.publisher.close()
    await this.deadLetters.close()
  }
}

export const openKafkaQueue = (options: KafkaQueueOptions) => KafkaSpanQueue.open(options)
