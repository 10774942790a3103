/**
 * Long synchronous work on the main thread (decoding a request body, building a batch's rows,
 * scoring a chunk of traces) runs in turns, and the process has one queue of them. Each pass of the
 * event loop gives turns, in the order they were asked for, until the turns of that pass have run
 * for `PASS_BUDGET_MS`; the rest wait for the next pass. Between two passes the loop runs its timers
 * and serves every socket that has something to read, so requests, `/metrics` scrapes and
 * kept-alive connections wait at most a pass's turns, not for the whole backlog.
 *
 * One queue, not one setImmediate per caller: immediates queued before a check phase all run in
 * it, so sliced loops that each yielded on their own (the span insert, the score rows, the scorer,
 * the decodes) ran back to back in one pass, and the longest stall was their sum. One turn a pass
 * bounded it, but a pass that also read hundreds of shed bodies then left the work that drains the
 * queue a small share of the CPU (12% fewer spans stored per second under overload).
 */
const PASS_BUDGET_MS = 40
/** Turns offered to one pass at most: each is an immediate queued before the pass begins. */
const MAX_TURNS_PER_PASS = 16

const waiting: (() => void)[] = []
let offered = false

/** Resolves at the caller's turn. */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    offerTurns()
  })
}

/**
 * Queues the next pass's turns. Immediates queued now run together in the coming check phase, each
 * after the microtasks of the one before (the previous turn's work up to its next real wait), so a
 * turn knows how long the pass's turns have run.
 */
function offerTurns(): void {
  if (offered) return
  offered = true
  const pass = { startedAt: -1 }
  // As many as a pass may give, not as many as wait now: a turn's work asks for its next turn as it ends.
  for (let i = 0; i < MAX_TURNS_PER_PASS; i++) setImmediate(giveTurn, pass)
}

function giveTurn(pass: { startedAt: number }): void {
  const now = performance.now()
  if (pass.startedAt < 0) {
    pass.startedAt = now
    // Turns asked for from here on go to the next pass (immediates queued in a check phase run in the next).
    offered = false
  }
  if (now - pass.startedAt < PASS_BUDGET_MS) waiting.shift()?.()
  if (waiting.length > 0) offerTurns()
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
