import type { Admin } from 'kafkajs'

export interface TopicSpec {
  topic: string
  partitions: number
  replicationFactor: number
  /** The topic's min.insync.replicas; undefined: the brokers' default. */
  minInsyncReplicas?: number
}

/** Kafka is not there or the topics cannot be set up; start-up stops with this message. */
export class KafkaSetupError extends Error {
  readonly code = 'KAFKA_SETUP'
}

function howToCreate(spec: TopicSpec, brokers: string[]): string {
  return (
    `kafka-topics.sh --bootstrap-server ${brokers.join(',')} --create --topic ${spec.topic} ` +
    `--partitions ${spec.partitions} --replication-factor ${spec.replicationFactor}` +
    (spec.minInsyncReplicas ? ` --config min.insync.replicas=${spec.minInsyncReplicas}` : '')
  )
}

function missingError(missing: TopicSpec[], brokers: string[], reason: string): KafkaSetupError {
  const many = missing.length > 1
  return new KafkaSetupError(
    `Kafka topic${many ? 's' : ''} ${missing.map((s) => `'${s.topic}'`).join(', ')} missing (${reason}). ` +
      `Create ${many ? 'them' : 'it'} with:\n` +
      missing.map((s) => `  ${howToCreate(s, brokers)}`).join('\n'),
  )
}

/**
 * Creates the topics that are missing with the configured partitions (unless `create` is false:
 * then a missing topic is a start-up error). Existing topics are left as they are: fewer
 * partitions than configured only limit how many consumers share the work.
 */
export async function ensureTopics(
  admin: Pick<Admin, 'listTopics' | 'createTopics'>,
  specs: TopicSpec[],
  brokers: string[],
  create: boolean,
  options: { visibleWithinMs?: number } = {},
): Promise<void> {
  let existing: string[]
  try {
    existing = await admin.listTopics()
  } catch (err) {
    throw new KafkaSetupError(`cannot reach Kafka at ${brokers.join(',')}: ${(err as Error).message}. Check KAFKA_BROKERS.`)
  }
  const missing = specs.filter((s) => !existing.includes(s.topic))
  if (missing.length === 0) return
  if (!create) throw missingError(missing, brokers, 'creating topics is turned off')
  try {
    await admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((s) => ({
        topic: s.topic,
        numPartitions: s.partitions,
        replicationFactor: s.replicationFactor,
        ...(s.minInsyncReplicas ? { configEntries: [{ name: 'min.insync.replicas', value: String(s.minInsyncReplicas) }] } : {}),
      })),
    })
  } catch (err) {
    // Another collector may have created it at the same moment, or the create went through and
    // the broker asked has not learnt of the topic yet (on a cluster, waiting for its leaders can
    // fail with "does not host this topic-partition"): only a topic still missing after a while is
    // an error.
    const still = await stillMissing(admin, missing, options.visibleWithinMs ?? TOPIC_VISIBLE_WITHIN_MS)
    if (still.length === 0) return
    throw missingError(still, brokers, `could not create: ${(err as Error).message}`)
  }
}

/** How long a topic whose create failed may take to show in the cluster's metadata. */
const TOPIC_VISIBLE_WITHIN_MS = 10_000

/** The topics of `specs` that the cluster still does not list after `withinMs`, asked every 250 ms. */
async function stillMissing(admin: Pick<Admin, 'listTopics'>, specs: TopicSpec[], withinMs: number): Promise<TopicSpec[]> {
  const deadline = Date.now() + withinMs
  for (;;) {
    const listed = await admin.listTopics().catch(() => [] as string[])
    const still = specs.filter((s) => !listed.includes(s.topic))
    if (still.length === 0 || Date.now() >= deadline) return still
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

/**
 * How many partitions the topic has now (it may have been created with other settings than
 * Sieve's, or grown since). Read once at start: a topic given more partitions later is picked up
 * by restarting the collectors, as a keyed record's partition depends on the count.
 */
export async function partitionCount(admin: Admin, topic: string): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] })
  const count = topics[0]?.partitions.length ?? 0
  if (count === 0) throw new KafkaSetupError(`Kafka topic '${topic}' has no partitions`)
  return count
}
