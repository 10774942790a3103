import type { BudgetLimits, SliceBudget } from '@sieve/judging'

export type SkipReason =
  | 'calls_per_minute'
  | 'calls_per_day'
  | 'spend_per_day'
  | 'slice_calls_per_minute'
  | 'slice_calls_per_day'
  /** Daily caps shared through storage, and what the other instances used is not read yet. */
  | 'budget_unknown'

export interface SliceLimits extends SliceBudget {
  /** Fraction of the global budgets after which this slice stops. */
  stopAt: number
}

/** Calls reserved and spend of one slice on one UTC day. */
export interface DayUse {
  calls: number
  spend: number
}

interface Window {
  key: number
  calls: number
}

/** Whether `total` calls stay within `share` of `limit` (no limit: always). */
function within(total: number, limit: number | undefined, share: number): boolean {
  return limit === undefined || total <= Math.floor(limit * share)
}

const MINUTE = 60_000
export const DAY_MS = 86_400_000

/** Whether any limit counts per UTC day: only those are worth sharing between instances and restarts. */
export function hasDailyLimits(limits: BudgetLimits, sliceLimits: ReadonlyMap<string, SliceLimits>): boolean {
  return limits.callsPerDay !== undefined || limits.spendPerDay !== undefined || [...sliceLimits.values()].some((s) => s.callsPerDay !== undefined)
}

/**
 * Judge calls and spend against per-minute and per-UTC-day limits, global and per slice. Calls are
 * reserved before they are made (a trace reserves all of its calls at once, so it is judged whole
 * or not at all); spend is known only afterwards and is added when the answer arrives.
 *
 * The day's figures are this instance's own plus, when the ledger is shared (`SharedBudget`),
 * what every other instance and earlier process stored, as last read. Deciding reads memory only:
 * the scoring path never waits for storage. Per-minute limits pace calls and stay per instance.
 */
export class BudgetLedger {
  private minute: Window = { key: -1, calls: 0 }
  private readonly sliceMinutes = new Map<string, Window>()
  /** UTC day (days since the epoch) `own` and `others` count. */
  private day = -1
  private own = new Map<string, DayUse>()
  private others = new Map<string, DayUse>()
  private ownTotal: DayUse = { calls: 0, spend: 0 }
  private othersTotal: DayUse = { calls: 0, spend: 0 }
  /** Bumped on every change of this instance's day figures: what a flush compares with. */
  private changes = 0
  /** What others used is known (always, unshared); until then no daily cap can be honoured. */
  private othersKnown: boolean

  constructor(
    private readonly limits: BudgetLimits,
    private readonly sliceLimits: ReadonlyMap<string, SliceLimits>,
    private readonly now: () => number = Date.now,
    /** The day's figures are shared: nothing is reserved against a daily cap until `setOthers` ran once. */
    shared = false,
  ) {
    this.othersKnown = !shared
  }

  private roll(w: Window, size: number): Window {
    const key = Math.floor(this.now() / size)
    if (w.key !== key) {
      w.key = key
      w.calls = 0
    }
    return w
  }

  /** The current UTC day, starting it afresh (nothing used, by anyone) when it changed. */
  today(): number {
    const day = Math.floor(this.now() / DAY_MS)
    if (day !== this.day) {
      this.day = day
      this.own = new Map()
      this.others = new Map()
      this.ownTotal = { calls: 0, spend: 0 }
      this.othersTotal = { calls: 0, spend: 0 }
      this.changes++
    }
    return day
  }

  private sliceMinute(name: string): Window {
    let w = this.sliceMinutes.get(name)
    if (!w) this.sliceMinutes.set(name, (w = { key: -1, calls: 0 }))
    return this.roll(w, MINUTE)
  }

  private ownUse(slice: string): DayUse {
    this.today()
    let use = this.own.get(slice)
    if (!use) this.own.set(slice, (use = { calls: 0, spend: 0 }))
    return use
  }

  /** Reserves `calls` for `slice`, or says which limit refused them. */
  tryReserve(slice: string, calls: number): { ok: true } | { ok: false; reason: SkipReason } {
    const verdict = this.wouldReserve(slice, calls)
    if (!verdict.ok) return verdict
    this.minute.calls += calls
    this.sliceMinute(slice).calls += calls
    this.ownUse(slice).calls += calls
    this.ownTotal.calls += calls
    this.changes++
    return verdict
  }

  /** Whether tryReserve would reserve `calls` for `slice` now; reserves nothing. */
  wouldReserve(slice: string, calls: number): { ok: true } | { ok: false; reason: SkipReason } {
    const sl = this.sliceLimits.get(slice) ?? { stopAt: 1 }
    this.today()
    if (!this.othersKnown) return { ok: false, reason: 'budget_unknown' }
    const minute = this.roll(this.minute, MINUTE)
    const day = this.ownTotal.calls + this.othersTotal.calls
    const sliceDay = (this.own.get(slice)?.calls ?? 0) + (this.others.get(slice)?.calls ?? 0)
    if (!within(minute.calls + calls, this.limits.callsPerMinute, sl.stopAt)) return { ok: false, reason: 'calls_per_minute' }
    if (!within(day + calls, this.limits.callsPerDay, sl.stopAt)) return { ok: false, reason: 'calls_per_day' }
    if (this.limits.spendPerDay !== undefined && this.spendToday() >= this.limits.spendPerDay * sl.stopAt) return { ok: false, reason: 'spend_per_day' }
    if (!within(this.sliceMinute(slice).calls + calls, sl.callsPerMinute, 1)) return { ok: false, reason: 'slice_calls_per_minute' }
    if (!within(sliceDay + calls, sl.callsPerDay, 1)) return { ok: false, reason: 'slice_calls_per_day' }
    return { ok: true }
  }

  /** Gives back calls reserved but not made (e.g. the trace was dropped before judging). */
  release(slice: string, calls: number): void {
    const minute = this.roll(this.minute, MINUTE)
    minute.calls = Math.max(0, minute.calls - calls)
    const own = this.sliceMinute(slice)
    own.calls = Math.max(0, own.calls - calls)
    const use = this.ownUse(slice)
    const back = Math.min(use.calls, calls)
    use.calls -= back
    this.ownTotal.calls -= back
    this.changes++
  }

  /** The cost of one answer, counted against today and the slice the trace was sampled for. */
  addSpend(slice: string, usd: number): void {
    this.ownUse(slice).spend += usd
    this.ownTotal.spend += usd
    this.changes++
  }

  private spendToday(): number {
    this.today()
    return this.ownTotal.spend + this.othersTotal.spend
  }

  /** This instance's figures of the day per slice, and a count of changes that says whether they moved. */
  ownDay(): { day: number; slices: Array<[string, DayUse]>; changes: number } {
    const day = this.today()
    return { day, slices: [...this.own].map(([slice, use]) => [slice, { ...use }]), changes: this.changes }
  }

  /** What every other instance used on `day`, per slice, as read from storage. */
  setOthers(day: number, others: ReadonlyMap<string, DayUse>): void {
    // Read for a day that has passed since: today's figures of others start at nothing.
    if (day === this.today()) {
      this.others = new Map(others)
      this.othersTotal = { calls: 0, spend: 0 }
      for (const use of others.values()) {
        this.othersTotal.calls += use.calls
        this.othersTotal.spend += use.spend
      }
    }
    this.othersKnown = true
  }

  /** Daily figures are those of every instance (this one's exact, the others' as last read). */
  snapshot() {
    this.today()
    return {
      callsThisMinute: this.roll(this.minute, MINUTE).calls,
      callsToday: this.ownTotal.calls + this.othersTotal.calls,
      spendToday: this.spendToday(),
      known: this.othersKnown,
    }
  }
}
