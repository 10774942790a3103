import { randomUUID } from 'node:crypto'
import type { Storage } from '@sieve/core'
import { DAY_MS, type BudgetLedger, type DayUse } from './budget.js'

export interface SharedBudgetOptions {
  /** How often this instance's figures of the day are written, when they changed (ms); default 1000. */
  flushMs?: number
  /** How often the other instances' figures are read (ms); default 5000. */
  refreshMs?: number
  /**
   * Reported, then tried again at the next beat: figures stay in memory meanwhile. `again` says the
   * previous read or write failed too (storage still down), for a caller that logs only the first.
   */
  onError?: (err: Error, doing: 'read' | 'write', again: boolean) => void
}

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)

/**
 * Keeps a budget ledger's daily figures in the `judge_budget` table (migration 0010), so the
 * daily caps hold across restarts, crash loops and every scorer instance of the deployment.
 *
 * Each process is an instance of its own (a random id) and writes the running totals of its day
 * per slice, one row per (day, slice, instance), every `flushMs` and on close; a newer row of the
 * same instance replaces the older (ReplacingMergeTree by `revision`). It reads the sum of every
 * other instance's rows at start and every `refreshMs`. The ledger decides in memory on its own
 * figures, exact, plus the others' as last read: between two reads an instance does not see what
 * the others reserved, which bounds how far the instances together can pass a cap
 * (judge/README.md, "Budgets across restarts and instances").
 */
export class SharedBudget {
  readonly instanceId = randomUUID()
  /** Settles once the first read of the others' figures was attempted (the ledger refuses daily calls until one succeeds). */
  readonly loaded: Promise<void>
  /** `loaded` has settled: true before anything waiting on it runs. */
  attempted = false
  private revision = 0
  private flushedChanges = -1
  /** Reads and writes one at a time: in order, and never two writes of one instance racing. */
  private chain: Promise<void> = Promise.resolve()
  private readonly timers: NodeJS.Timeout[]
  private closed = false
  private failing = false
  /** Reads and writes waiting or running: a beat finding one of its kind still there skips (slow storage). */
  private readonly queued = { read: 0, write: 0 }

  constructor(
    private readonly storage: Storage,
    private readonly ledger: BudgetLedger,
    private readonly options: SharedBudgetOptions = {},
  ) {
    this.loaded = this.refresh().then(() => void (this.attempted = true))
    const every = (ms: number, doing: 'read' | 'write', work: () => Promise<void>) => {
      const timer = setInterval(() => {
        if (this.queued[doing] === 0) void work()
      }, ms)
      // The judge's work keeps the process alive, not its bookkeeping.
      timer.unref()
      return timer
    }
    this.timers = [every(options.flushMs ?? 1000, 'write', () => this.flush()), every(options.refreshMs ?? 5000, 'read', () => this.refresh())]
  }

  /** Writes this instance's figures of the day if they changed since the last write. */
  flush(): Promise<void> {
    return this.serial('write', async () => {
      const { day, slices, changes } = this.ledger.ownDay()
      if (changes === this.flushedChanges) return
      if (slices.length) {
        const revision = ++this.revision
        await this.storage.insert({
          table: 'judge_budget',
          values: slices.map(([slice, use]) => ({
            utc_day: isoDay(day),
            slice,
            instance_id: this.instanceId,
            calls: use.calls,
            spend_usd: use.spend,
            revision,
          })),
          format: 'JSONEachRow',
        })
      }
      this.flushedChanges = changes
    })
  }

  /** Reads what every other instance used today. */
  refresh(): Promise<void> {
    return this.serial('read', async () => {
      const day = this.ledger.today()
      const result = await this.storage.query({
        query: `SELECT slice, toString(sum(calls)) AS calls, sum(spend_usd) AS spend
                FROM judge_budget FINAL
                WHERE utc_day = {day:Date} AND instance_id != {instance:String}
                GROUP BY slice`,
        query_params: { day: isoDay(day), instance: this.instanceId },
        format: 'JSONEachRow',
      })
      const rows = await result.json<{ slice: string; calls: string; spend: number }>()
      this.ledger.setOthers(day, new Map(rows.map((r): [string, DayUse] => [r.slice, { calls: Number(r.calls), spend: r.spend }])))
    })
  }

  /** Writes this instance's figures, then reads the others' (tests, tools). */
  async sync(): Promise<void> {
    await this.flush()
    await this.refresh()
  }

  /** Stops the timers and writes the last figures (spend of calls that finished while closing included). */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const timer of this.timers) clearInterval(timer)
    await this.flush()
  }

  private serial(doing: 'read' | 'write', work: () => Promise<void>): Promise<void> {
    this.queued[doing]++
    const next = this.chain
      .then(work)
      .then(
        () => void (this.failing = false),
        (err: Error) => {
          this.options.onError?.(err, doing, this.failing)
          this.failing = true
        },
      )
      .finally(() => void this.queued[doing]--)
    this.chain = next
    return next
  }
}
