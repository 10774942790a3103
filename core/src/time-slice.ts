/**
 * Long synchronous loops on the main thread (building a batch's rows, scoring a chunk of traces)
 * run in slices: a loop calls `await slice.yield()` between items, and once the slice has run for
 * its budget the call gives the event loop a turn (setImmediate: after timers and socket reads).
 * Requests, `/metrics` scrapes and kept-alive connections are then served between slices, not after
 * the whole batch. Within the budget the call costs a clock read and a resolved promise.
 */
export class TimeSlice {
  private started = performance.now()

  /** 20 ms: a 2-core machine under overload still serves every socket several times a second. */
  constructor(private readonly budgetMs = 20) {}

  async yield(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return
    await new Promise<void>((resolve) => setImmediate(resolve))
    this.started = performance.now()
  }
}
