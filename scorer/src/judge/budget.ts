import type { BudgetLimits, SliceBudget } from './config.js'

export type SkipReason = 'calls_per_minute' | 'calls_per_day' | 'spend_per_day' | 'slice_calls_per_minute' | 'slice_calls_per_day'

export interface SliceLimits extends SliceBudget {
  /** Fraction of the global budgets after which this slice stops. */
  stopAt: number
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
const DAY = 86_400_000

/**
 * Judge calls and spend against per-minute and per-UTC-day limits, global and per slice. Calls are
 * reserved before they are made (a trace reserves all of its calls at once, so it is judged whole
 * or not at all); spend is known only afterwards and is added when the answer arrives.
 */
export class BudgetLedger {
  private minute: Window = { key: -1, calls: 0 }
  private day: Window = { key: -1, calls: 0 }
  private spentDay = -1
  private spent = 0
  private readonly slices = new Map<string, { minute: Window; day: Window }>()

  constructor(
    private readonly limits: BudgetLimits,
    private readonly sliceLimits: ReadonlyMap<string, SliceLimits>,
    private readonly now: () => number = Date.now,
  ) {}

  private roll(w: Window, size: number): Window {
    const key = Math.floor(this.now() / size)
    if (w.key !== key) {
      w.key = key
      w.calls = 0
    }
    return w
  }

  private sliceWindows(name: string) {
    let w = this.slices.get(name)
    if (!w) this.slices.set(name, (w = { minute: { key: -1, calls: 0 }, day: { key: -1, calls: 0 } }))
    return { minute: this.roll(w.minute, MINUTE), day: this.roll(w.day, DAY) }
  }

  private spentToday(): number {
    const key = Math.floor(this.now() / DAY)
    if (key !== this.spentDay) {
      this.spentDay = key
      this.spent = 0
    }
    return this.spent
  }

  /** Reserves `calls` for `slice`, or says which limit refused them. */
  tryReserve(slice: string, calls: number): { ok: true } | { ok: false; reason: SkipReason } {
    const verdict = this.wouldReserve(slice, calls)
    if (!verdict.ok) return verdict
    const own = this.sliceWindows(slice)
    for (const w of [this.minute, this.day, own.minute, own.day]) w.calls += calls
    return verdict
  }

  /** Whether tryReserve would reserve `calls` for `slice` now; reserves nothing. */
  wouldReserve(slice: string, calls: number): { ok: true } | { ok: false; reason: SkipReason } {
    const sl = this.sliceLimits.get(slice) ?? { stopAt: 1 }
    const minute = this.roll(this.minute, MINUTE)
    const day = this.roll(this.day, DAY)
    const own = this.sliceWindows(slice)
    if (!within(minute.calls + calls, this.limits.callsPerMinute, sl.stopAt)) return { ok: false, reason: 'calls_per_minute' }
    if (!within(day.calls + calls, this.limits.callsPerDay, sl.stopAt)) return { ok: false, reason: 'calls_per_day' }
    if (this.limits.spendPerDay !== undefined && this.spentToday() >= this.limits.spendPerDay * sl.stopAt) return { ok: false, reason: 'spend_per_day' }
    if (!within(own.minute.calls + calls, sl.callsPerMinute, 1)) return { ok: false, reason: 'slice_calls_per_minute' }
    if (!within(own.day.calls + calls, sl.callsPerDay, 1)) return { ok: false, reason: 'slice_calls_per_day' }
    return { ok: true }
  }

  /** Gives back calls reserved but not made (e.g. the trace was dropped before judging). */
  release(slice: string, calls: number): void {
    const own = this.sliceWindows(slice)
    for (const w of [this.roll(this.minute, MINUTE), this.roll(this.day, DAY), own.minute, own.day]) w.calls = Math.max(0, w.calls - calls)
  }

  addSpend(usd: number): void {
    this.spentToday()
    this.spent += usd
  }

  snapshot() {
    return { callsThisMinute: this.roll(this.minute, MINUTE).calls, callsToday: this.roll(this.day, DAY).calls, spendToday: this.spentToday() }
  }
}
