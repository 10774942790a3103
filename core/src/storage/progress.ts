import type { Storage } from './storage.js'

/**
 * How far the embedded pipeline's in-memory stages got (migration 0011). The in-process queue keeps
 * nothing across a restart: a span is acknowledged once it is in `spans`, while the rewrite of its
 * trace's `traces` row ('rollup') and the scoring of its trace ('scores') live in memory. Each stage
 * records the time before which every span that arrived (`spans.ingested_at`) is done with, and at
 * start re-does the traces of the spans that arrived from there on (`tracesArrivedSince`). With
 * Kafka the committed offsets play this part.
 */
export type ProgressStage = 'rollup' | 'scores'

/**
 * A recorded time trails the stage's own reckoning by this much: `ingested_at` is stamped by the
 * engine's clock (a ClickHouse server's may differ from this process's), and the scorer receives a
 * span a little after it was published, perhaps after the ingester stored it. Start-up then looks a
 * few seconds further back than it needs to, never less far.
 */
export const PROGRESS_SLACK_MS = 10_000

/** With no progress recorded yet (a store written before migration 0011), how far back start-up looks. */
export const FIRST_LOOKBACK_MS = 3_600_000

/** The time (Unix ms) before which every arrived span is done with by `stage`; undefined when never recorded. */
export async function readProgress(client: Storage, stage: ProgressStage): Promise<number | undefined> {
  const rows = await (
    await client.query({
      query: 'SELECT toUnixTimestamp64Milli(done_before) AS ms FROM progress FINAL WHERE stage = {stage:String}',
      query_params: { stage },
      format: 'JSONEachRow',
    })
  ).json<{ ms: string | number }>()
  return rows.length ? Number(rows[0]!.ms) : undefined
}

async function writeProgress(client: Storage, stage: ProgressStage, doneBeforeMs: number, writtenAtMs: number): Promise<void> {
  await client.command({
    query: `INSERT INTO progress (stage, done_before, updated_at)
      SELECT {stage:String}, fromUnixTimestamp64Milli({doneBefore:Int64}), fromUnixTimestamp64Milli({writtenAt:Int64})`,
    query_params: { stage, doneBefore: Math.floor(doneBeforeMs), writtenAt: writtenAtMs },
  })
}

export interface ProgressRecorderOptions {
  storage: Storage
  stage: ProgressStage
  /** The stage's reckoning now: every span that arrived before this time (Unix ms) is done with. */
  doneBefore: () => number
  /**
   * When the stage last took or finished work (Unix ms, the clock of `doneBefore`). Once a recorded
   * time is past it, a later one would spare start-up nothing: while idle nothing is written (a write
   * every 5 s per stage was an idle `sieve up`'s most frequent statement). Unset: recorded every interval.
   */
  lastWorkAt?: () => number
  /** How often it is recorded while running (it is recorded on stop too). */
  intervalMs?: number
  onError?: (error: unknown) => void
}

/**
 * Records a stage's progress every few seconds and when it stops, `PROGRESS_SLACK_MS` behind its
 * reckoning and never past a point start-up recovery left work at (`holdAt`). One write at a time,
 * none when nothing moved or the stage is idle (`lastWorkAt`); a failed write is made good by the next.
 */
export class ProgressRecorder {
  private timer: NodeJS.Timeout | undefined
  private writing: Promise<void> = Promise.resolve()
  private held = Infinity
  private recorded: number | undefined
  private lastWriteMs = 0
  private readonly intervalMs: number

  constructor(private readonly options: ProgressRecorderOptions) {
    this.intervalMs = options.intervalMs ?? 5000
  }

  /** Start-up recovery stopped at its bound: spans that arrived from `ms` on stay to be done by the next start. */
  holdAt(ms: number): void {
    this.held = Math.min(this.held, ms)
  }

  start(): void {
    this.timer = setInterval(() => void this.record(), this.intervalMs)
    this.timer.unref()
  }

  /** Stops recording, after a last record of where the stage got. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.record()
  }

  private record(): Promise<void> {
    this.writing = this.writing.then(async () => {
      const doneBefore = Math.min(this.held, this.options.doneBefore() - PROGRESS_SLACK_MS)
      if (doneBefore === this.recorded) return
      const lastWork = this.options.lastWorkAt?.()
      if (lastWork !== undefined && this.recorded !== undefined && this.recorded >= lastWork) return
      // The newest write wins (ReplacingMergeTree by updated_at): two never share a millisecond.
      const writtenAt = (this.lastWriteMs = Math.max(Date.now(), this.lastWriteMs + 1))
      try {
        await writeProgress(this.options.storage, this.options.stage, doneBefore, writtenAt)
        this.recorded = doneBefore
      } catch (error) {
        this.options.onError?.(error)
      }
    })
    return this.writing
  }
}
