import kafkajs, { type Message } from 'kafkajs'

/**
 * The partition a keyed record goes to, by kafkajs's default partitioner (murmur2 of the key, as
 * the Java client), for a topic of `partitions` partitions. The publisher names each record's
 * partition itself so it can bound how many bytes a produce request puts into one partition;
 * the choice is the one kafkajs would have made, so every span of a trace still meets on one
 * (and a record without a key goes round the partitions, as there).
 */
export function keyPartitioner(topic: string, partitions: number): (key: Message['key']) => number {
  const partitioner = kafkajs.Partitioners.DefaultPartitioner()
  // Only the count matters for a keyed record.
  const partitionMetadata = Array.from({ length: partitions }, (_, partitionId) => ({
    partitionErrorCode: 0,
    partitionId,
    leader: 0,
    replicas: [0],
    isr: [0],
  }))
  return (key) => partitioner({ topic, partitionMetadata, message: { key, value: null } })
}
