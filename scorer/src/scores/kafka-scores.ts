import kafkajs, { type Producer } from 'kafkajs'
import type { ScoreRecord } from './score-record.js'
import type { ScoreSink } from './score-sink.js'

/**
 * The scores topic, for downstream consumers: one message per score, JSON of the ScoreRecord,
 * keyed by project and trace so all scores of a trace land in one partition, in order. Written
 * after the `scores` table (see `fanOut`); a re-score produces again, and consumers keep the latest
 * record per (project, trace, kind, scorer name, scorer version, span id), as the table does.
 */
export function kafkaScoreSink(producer: Pick<Producer, 'send'>, topic: string): ScoreSink {
  return {
    async write(records: ScoreRecord[]) {
      if (!records.length) return
      await producer.send({
        topic,
        acks: -1,
        messages: records.map((r) => ({ key: `${r.projectId}/${r.traceId}`, value: JSON.stringify(r) })),
      })
    },
  }
}

export interface KafkaScoresOptions {
  brokers: string[]
  clientId: string
  topic: string
  /** Partitions and replication of the scores topic when it does not exist yet (it is created). */
  partitions?: number
  replicationFactor?: number
}

/** Connects an idempotent producer for the scores topic; `close()` disconnects it. */
export async function openKafkaScoreSink(options: KafkaScoresOptions): Promise<ScoreSink & { close(): Promise<void> }> {
  const kafka = new kafkajs.Kafka({ clientId: `${options.clientId}-scorer`, brokers: options.brokers, logLevel: kafkajs.logLevel.NOTHING })
  // Brokers run with topic auto-creation off: without this, every score write fails forever.
  const admin = kafka.admin()
  await admin.connect()
  try {
    await admin.createTopics({
      topics: [{ topic: options.topic, numPartitions: options.partitions ?? 1, replicationFactor: options.replicationFactor ?? 1 }],
      waitForLeaders: true,
    })
  } finally {
    await admin.disconnect()
  }
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 })
  await producer.connect()
  const sink = kafkaScoreSink(producer, options.topic)
  return { write: sink.write, close: () => producer.disconnect() }
}
