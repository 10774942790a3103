import type { CompressionTypes, Message, RecordMetadata } from 'kafkajs'

/** What `sendToEveryPartition` needs of a kafkajs producer. */
export interface Sender {
  send(record: { topic: string; acks: number; compression?: CompressionTypes; messages: Message[] }): Promise<RecordMetadata[]>
}

export type PartitionedMessage = Message & { partition: number }

/** Sends of the messages kafkajs left out before a send is given up (each is a full kafkajs send with its own retries). */
const MAX_SENDS = 4

/**
 * `producer.send()`, resolving only once Kafka acknowledged every partition the messages go to.
 *
 * kafkajs 2.2.4 loses messages when a partition leader moves during a send (kafkajs issue 1303):
 * one send() writes to every leader at once, and its retries keep the answers of the brokers that
 * already answered and send nothing more to them. When a failed broker's partition has moved to
 * one of those (a leader stepping down in a rolling restart answers NOT_LEADER_OR_FOLLOWER), its
 * messages are never sent, yet send() resolves. Each partition's answer is in the result, so the
 * messages of a partition missing from it are sent again: by the same idempotent producer, whose
 * sequence number for that partition kafkajs rolled back on the failure, so should the first
 * broker have written them after all, the new leader keeps one copy.
 */
export async function sendToEveryPartition(
  producer: Sender,
  record: { topic: string; acks: number; compression?: CompressionTypes; messages: PartitionedMessage[] },
): Promise<void> {
  let messages = record.messages
  for (let sends = 1; messages.length; sends++) {
    const acknowledged = new Set<number>()
    for (const r of await producer.send({ ...record, messages })) if (r.topicName === record.topic && r.errorCode === 0) acknowledged.add(r.partition)
    messages = messages.filter((m) => !acknowledged.has(m.partition))
    if (messages.length && sends >= MAX_SENDS) {
      const missing = [...new Set(messages.map((m) => m.partition))].sort((a, b) => a - b)
      throw new Error(`Kafka did not acknowledge partitions ${missing.join(', ')} of ${record.topic} after ${sends} sends`)
    }
  }
}
