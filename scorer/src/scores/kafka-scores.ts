import type { ScoreRecord, ScoreSink } from '@sieve/scoring'

/** Where the records go: a Kafka topic writer (the collector's `openKafkaTopicWriter`), or anything that takes keyed messages. */
export interface KeyedMessageWriter {
  write(messages: { key: string; value: string }[]): Promise<void>
}

/**
 * The scores topic, for downstream consumers: one message per score, JSON of the ScoreRecord,
 * keyed by project and trace so all scores of a trace land in one partition, in order. Written
 * after the `scores` table (see `fanOut`); a re-score produces again, and consumers keep the latest
 * record per (project, trace, kind, scorer name, scorer version, span id), as the table does.
 */
export function kafkaScoreSink(writer: KeyedMessageWriter): ScoreSink {
  return {
    write: (records: ScoreRecord[]) => writer.write(records.map((r) => ({ key: `${r.projectId}/${r.traceId}`, value: JSON.stringify(r) }))),
  }
}
