import kafkajs, { type Message } from 'kafkajs'
import { connectOnUse } from './connect-on-use.js'
import { sendToEveryPartition, type Sender } from './kafka-send.js'

/** What the sink needs of a kafkajs producer. */
export interface DeadLetterProducer extends Sender {
  connect(): Promise<void>
  disconnect(): Promise<void>
}

/**
 * Where records that can never be handled go, each with headers naming the error and its
 * origin (`sieve.error`, `sieve.source.topic|partition|offset`, `sieve.consumer.group`), so an
 * operator can inspect and replay them. The send must succeed before the partition moves on.
 */
export class DeadLetterSink {
  /** On the first dead letter; a connect failing then fails the batch, fetched again after its back-off. */
  private readonly connect: () => Promise<void>

  constructor(
    private readonly producer: DeadLetterProducer,
    private readonly topic: string,
    /** The partition of a record's key (key-partitioner.ts), for the topic's partition count. */
    private readonly partitionOf: (key: Message['key']) => number,
  ) {
    this.connect = connectOnUse(producer)
  }

  /**
   * Resolves once Kafka acknowledged every partition the records go to: a plain send() can
   * resolve without having written a partition whose leader moved (kafka-send.ts), and the
   * source partition would then move past records stored nowhere.
   */
  async send(messages: Message[]): Promise<void> {
    if (messages.length === 0) return
    await this.connect()
    await sendToEveryPartition(this.producer, {
      topic: this.topic,
      acks: -1,
      compression: kafkajs.CompressionTypes.Snappy,
      messages: messages.map((m) => ({ ...m, partition: this.partitionOf(m.key) })),
    })
  }

  async close(): Promise<void> {
    await this.producer.disconnect().catch(() => {})
  }
}
