import type { Storage } from '@sieve/core'
import { readInsertIntents, recordInsertIntents, spanKey, storedSpanKeys, type InsertIntents, type QueuedSpan } from '@sieve/core'

/**
 * Keeps a Kafka replay from inserting a span twice. The ingester commits a partition only once
 * the `traces` rollup covers its batch, so a crash, a failed insert or a rebalance hands records
 * over again whose spans may already be stored. `spans` would collapse them at its next merge
 * (FINAL reads are exact meanwhile), but until then every non-FINAL count, every part and every
 * merge pays for them.
 *
 * Before each insert the guard records, per partition, the last offset the insert holds
 * (`insert_intents`). A batch that continues where this process's last insert of the partition
 * ended is new. One that does not (the first after a start or a rebalance, or a batch fetched
 * again after a failure) may repeat stored spans up to the recorded offset: those are looked up
 * in `spans` by their key and left out. Past the recorded offset nothing was ever inserted.
 */
export class ReplayGuard {
  /** Per partition, the offset after the last record this process inserted. */
  private readonly next = new Map<number, bigint>()

  constructor(
    private readonly storage: Storage,
    private readonly group: string,
  ) {}

  /** The group's partitions moved: any of them may have been inserted by another member since. */
  reassigned(): void {
    this.next.clear()
  }

  /** The spans of `batch` to insert, once the insert's reach is recorded. */
  async admit(batch: QueuedSpan[]): Promise<{ insert: QueuedSpan[]; replayed: number }> {
    const reach = lastOffsets(batch)
    // A split batch's first half may end before its first record (kafka-subscription.ts): nothing to record.
    for (const [partition, offset] of reach) if (offset < 0n) reach.delete(partition)
    const resumed = new Set<number>()
    for (const [partition, first] of firstOffsets(batch)) if (this.next.get(partition) !== first) resumed.add(partition)
    let insert = batch
    if (resumed.size) insert = await this.withoutStored(batch, resumed)
    await recordInsertIntents(this.storage, this.group, reach)
    return { insert, replayed: batch.length - insert.length }
  }

  /** The batch is stored: its partitions continue after it. */
  inserted(batch: QueuedSpan[]): void {
    for (const [partition, last] of lastOffsets(batch)) this.next.set(partition, last + 1n)
  }

  private async withoutStored(batch: QueuedSpan[], resumed: Set<number>): Promise<QueuedSpan[]> {
    const intents: InsertIntents = await readInsertIntents(this.storage, this.group)
    const doubtful = batch.filter((q) => resumed.has(q.partition) && BigInt(q.offset) <= (intents.get(q.partition) ?? -1n))
    if (doubtful.length === 0) return batch
    const stored = await storedSpanKeys(
      this.storage,
      doubtful.map((q) => q.span),
    )
    if (stored.size === 0) return batch
    const skip = new Set(doubtful.filter((q) => stored.has(spanKey(q.span))))
    return batch.filter((q) => !skip.has(q))
  }
}

function firstOffsets(batch: QueuedSpan[]): Map<number, bigint> {
  const first = new Map<number, bigint>()
  for (const q of batch) if (!first.has(q.partition)) first.set(q.partition, BigInt(q.offset))
  return first
}

/** Per partition, the highest offset the batch holds. */
export function lastOffsets(batch: QueuedSpan[]): Map<number, bigint> {
  const last = new Map<number, bigint>()
  for (const q of batch) {
    const offset = BigInt(q.offset)
    if ((last.get(q.partition) ?? -1n) < offset) last.set(q.partition, offset)
  }
  return last
}
