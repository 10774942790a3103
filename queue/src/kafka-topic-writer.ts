import type { Producer } from 'kafkajs'
import type { Config } from '@sieve/core'
import { kafkaClient, type KafkaSettings } from './kafka-client.js'
import { ensureTopics, partitionCount } from './kafka-topics.js'
import { keyPartitioner } from './key-partitioner.js'
import { sendToEveryPartition, type PartitionedMessage } from './kafka-send.js'
import { MAX_PARTITION_BYTES, MAX_REQUEST_BYTES, ProduceRequestBounds } from './produce-request-bounds.js'
import { connectOnUse } from './connect-on-use.js'

/** Keyed records written to one topic: each `write` resolves once every in-sync replica has them. */
export interface KafkaTopicWriter {
  write(messages: { key: string; value: string }[]): Promise<void>
  close(): Promise<void>
}

export interface KafkaTopicWriterOptions {
  kafka: KafkaSettings
  topic: string
  /** Who writes, appended to the client id (`sieve-scorer`), so brokers tell the writers apart. */
  role: string
  /** Create the topic when missing (default true), with the configured partitions and replication. */
  createTopics?: boolean
  logLevel?: Config['logLevel']
}

/**
 * A topic of Sieve's output for downstream consumers (the scores topic), set up like the spans
 * topic (`ensureTopics`: created when missing, a start-up error saying how to create it otherwise)
 * and written by an idempotent producer, so a retried send is not written twice. The producer
 * connects on the first write (connect-on-use.ts): a scorer restarted while a broker is down still starts.
 */
export async function openKafkaTopicWriter(options: KafkaTopicWriterOptions): Promise<KafkaTopicWriter> {
  const { kafka, topic } = options
  const client = kafkaClient(kafka, options.logLevel, `${kafka.clientId}-${options.role}`)
  const admin = client.admin()
  let partitions: number
  try {
    await admin.connect()
    await ensureTopics(
      admin,
      [{ topic, partitions: kafka.partitions, replicationFactor: kafka.replicationFactor, minInsyncReplicas: kafka.minInsyncReplicas }],
      kafka.brokers,
      options.createTopics ?? true,
    )
    partitions = await partitionCount(admin, topic)
  } finally {
    await admin.disconnect().catch(() => {})
  }
  const partitionOf = keyPartitioner(topic, partitions)
  const producer: Producer = client.producer({ idempotent: true, maxInFlightRequests: 1 })
  const connect = connectOnUse(producer)
  return {
    async write(messages) {
      if (messages.length === 0) return
      await connect()
      // Uncompressed: the topic is for consumers outside Sieve, which may have no Snappy codec.
      // Each message's partition named, so that every one of them is known acknowledged (kafka-send.ts).
      for (const request of produceRequests(messages.map((m) => ({ ...m, partition: partitionOf(m.key) })))) {
        await sendToEveryPartition(producer, { topic, acks: -1, messages: request })
      }
    },
    close: () => producer.disconnect(),
  }
}

/**
 * A write's messages in produce requests within the bounds the spans' publisher keeps (kafka-queue.ts):
 * a scorer's write of 1,000 traces is about 19,000 score messages, megabytes a partition, which the
 * broker refused whole (MESSAGE_TOO_LARGE), so that scores were never stored while the write was retried.
 */
function produceRequests(messages: PartitionedMessage[]): PartitionedMessage[][] {
  const requests: PartitionedMessage[][] = []
  let bounds: ProduceRequestBounds | undefined
  for (const message of messages) {
    const size = Buffer.byteLength(message.value as string) + Buffer.byteLength(message.key as string)
    if (!bounds?.fits(size, message.partition)) {
      bounds = new ProduceRequestBounds(MAX_REQUEST_BYTES, MAX_PARTITION_BYTES)
      requests.push([])
    }
    bounds.add(size, message.partition)
    requests.at(-1)!.push(message)
  }
  return requests
}
