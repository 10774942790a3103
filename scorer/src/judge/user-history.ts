import { userIdOf, type Trace } from '@sieve/core'

/**
 * How many traces of a user came before this one, for the new-user slice. Kept in memory per
 * scorer process and bounded: past `maxUsers` the users seen first are forgotten (and would count
 * as new again).
 */
export class UserHistory {
  private readonly counts = new Map<string, { n: number; traces: Set<string> }>()

  constructor(
    private readonly maxUsers = 100_000,
    /** Only the first traces matter; remembering more ids per user would be waste. */
    private readonly remember = 100,
  ) {}

  static userOf(trace: Trace): string {
    // The root span usually names the user; look there first.
    const root = trace.spans.find((s) => s.parentSpanId === '')
    const fromRoot = root ? userIdOf(root) : ''
    if (fromRoot) return fromRoot
    for (const s of trace.spans) {
      const u = userIdOf(s)
      if (u) return u
    }
    return ''
  }

  /** 0-based position of the trace among its user's traces; undefined when the trace names no user. */
  observe(trace: Trace): number | undefined {
    const user = UserHistory.userOf(trace)
    if (!user) return undefined
    const key = `${trace.projectId}\u0000${user}`
    let entry = this.counts.get(key)
    if (!entry) {
      this.counts.set(key, (entry = { n: 0, traces: new Set() }))
      if (this.counts.size > this.maxUsers) this.counts.delete(this.counts.keys().next().value!)
    }
    // A re-delivered trace keeps the position it had.
    if (entry.traces.has(trace.traceId)) return [...entry.traces].indexOf(trace.traceId)
    if (entry.traces.size < this.remember) entry.traces.add(trace.traceId)
    return entry.n++
  }
}
