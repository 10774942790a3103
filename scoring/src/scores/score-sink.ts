import type { ScoreRecord } from './score-record.js'

/**
 * Where scores go: the ClickHouse `scores` table, and with Kafka also the scores topic. A write
 * resolves once the records are stored; a rejection means nothing can be assumed stored, and the
 * caller writes them again (rows replace, so a repeat is harmless).
 */
export interface ScoreSink {
  write(records: ScoreRecord[]): Promise<void>
}

/** Writes to every sink; the first one (the table) is the record, the others are told after it. */
export function fanOut(primary: ScoreSink, ...others: ScoreSink[]): ScoreSink {
  return {
    async write(records) {
      await primary.write(records)
      await Promise.all(others.map((s) => s.write(records)))
    },
  }
}
