/**
 * Long synchronous work on the main thread (decoding a request body, building a batch's rows,
 * scoring a chunk of traces) runs in turns, and the process has one queue of them: each pass of
 * the event loop gives one turn, in the order they were asked for. Between two turns the loop runs
 * its timers and serves every socket that has something to read, so requests, `/metrics` scrapes
 * and kept-alive connections wait at most a turn, not for the whole backlog.
 *
 * One queue, not one setImmediate per caller: immediates queued before a check phase all run in
 * it, so sliced loops that each yielded on their own (the span insert, the score rows, the scorer,
 * a decode) ran back to back in one pass, and the longest stall was their sum.
 */
const waiting: (() => void)[] = []

/** Resolves at the caller's turn: the next pass of the event loop that has no turn before it. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (waiting.length === 1) setImmediate(giveTurn)
  })
}

function giveTurn(): void {
  waiting.shift()?.()
  // Scheduled from the check phase, so the next turn comes in the next pass, after timers and I/O.
  if (waiting.length > 0) setImmediate(giveTurn)
}

/**
 * A loop calls `await slice.yield()` between items; once the slice has run for its budget the call
 * waits for the next turn. Within the budget it costs a clock read and a resolved promise.
 */
export class TimeSlice {
  private started = performance.now()

  /** 20 ms: a 2-core machine under overload still serves every socket several times a second. */
  constructor(private readonly budgetMs = 20) {}

  async yield(): Promise<void> {
    if (performance.now() - this.started < this.budgetMs) return
    await nextTurn()
    this.started = performance.now()
  }
}
