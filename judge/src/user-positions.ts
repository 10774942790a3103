import type { Storage } from '@sieve/core'
import { compareNanos, firstTracesOfUsers, userIdOf, type Trace } from '@sieve/core'
import { traceView } from '@sieve/scoring'

/** A trace's place in its user's history: traces are ordered by start time, then trace id. */
interface Entry {
  traceId: string
  startNs: bigint
}

interface Waiter {
  entry: Entry
  resolve: (position: number) => void
  reject: (err: Error) => void
}

const before = (a: Entry, b: Entry) => a.startNs < b.startNs || (a.startNs === b.startNs && a.traceId < b.traceId)

/** Users per statement: keeps each query well under ClickHouse's max_query_size. */
const USERS_PER_QUERY = 1000

/**
 * The user a trace belongs to, as the `traces` rollup takes it: the root span's `user.id` when it
 * names one, else that of the earliest span that does.
 */
export function traceUserId(trace: Trace): string {
  const root = trace.spans.find((s) => s.parentSpanId === '')
  const fromRoot = root ? userIdOf(root) : ''
  if (fromRoot) return fromRoot
  let user = ''
  let earliest = ''
  for (const s of trace.spans) {
    const u = userIdOf(s)
    if (u && (!user || compareNanos(s.startTimeUnixNano, earliest) < 0)) {
      user = u
      earliest = s.startTimeUnixNano
    }
  }
  return user
}

/**
 * How many of a user's traces come before a given trace, for the new-user slice, read from the
 * `traces` table so that every scorer instance and every restart gives the same answer: the count
 * of the user's stored traces with an earlier (start time, trace id), capped at `firstTraces`.
 *
 * Lookups wait for the end of the current turn of the event loop and go out as one query per
 * project (the scorer offers a whole tick of traces at once). A user whose first `firstTraces`
 * traces are all stored has them cached (bounded by `maxUsers`): every later trace of theirs is
 * answered without a query.
 */
export class UserPositions {
  private readonly settled = new Map<string, Entry[]>()
  private waiting = new Map<string, Map<string, Waiter[]>>()
  private scheduled = false

  constructor(
    private readonly storage: Storage,
    readonly firstTraces: number,
    private readonly maxUsers = 100_000,
  ) {}

  /** 0-based position of the trace among its user's traces (at most `firstTraces`); undefined when it names no user. */
  positionOf(trace: Trace): Promise<number | undefined> {
    const user = traceUserId(trace)
    if (!user) return Promise.resolve(undefined)
    const entry = { traceId: trace.traceId.toLowerCase(), startNs: traceView(trace).startNs }
    const first = this.settled.get(`${trace.projectId}\u0000${user}`)
    if (first) return Promise.resolve(positionIn(first, entry))
    return new Promise((resolve, reject) => {
      let users = this.waiting.get(trace.projectId)
      if (!users) this.waiting.set(trace.projectId, (users = new Map()))
      let waiters = users.get(user)
      if (!waiters) users.set(user, (waiters = []))
      waiters.push({ entry, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        setImmediate(() => void this.flush())
      }
    })
  }

  private async flush(): Promise<void> {
    const batch = this.waiting
    this.waiting = new Map()
    this.scheduled = false
    await Promise.all(
      [...batch].flatMap(([projectId, users]) => {
        const names = [...users.keys()]
        const chunks: string[][] = []
        for (let i = 0; i < names.length; i += USERS_PER_QUERY) chunks.push(names.slice(i, i + USERS_PER_QUERY))
        return chunks.map(async (chunk) => {
          try {
            const first = await this.firstTracesOf(projectId, chunk)
            for (const user of chunk) this.answer(projectId, user, first.get(user) ?? [], users.get(user)!)
          } catch (err) {
            for (const user of chunk) for (const w of users.get(user)!) w.reject(err as Error)
          }
        })
      }),
    )
  }

  private answer(projectId: string, user: string, first: Entry[], waiters: Waiter[]): void {
    // Settled once the first traces are all stored, unless one of the traces asking about is not
    // stored yet and would come before the last of them (the ingester lags behind the scorer).
    const complete =
      first.length >= this.firstTraces && waiters.every((w) => first.some((e) => e.traceId === w.entry.traceId) || !before(w.entry, first.at(-1)!))
    if (complete) {
      this.settled.set(`${projectId}\u0000${user}`, first)
      if (this.settled.size > this.maxUsers) this.settled.delete(this.settled.keys().next().value!)
    }
    for (const w of waiters) w.resolve(positionIn(first, w.entry))
  }

  /** The first `firstTraces` traces of each user, in order (core's firstTracesOfUsers). */
  private async firstTracesOf(projectId: string, users: string[]): Promise<Map<string, Entry[]>> {
    const byUser = new Map<string, Entry[]>()
    for (const row of await firstTracesOfUsers(this.storage, projectId, users, this.firstTraces)) {
      let list = byUser.get(row.user)
      if (!list) byUser.set(row.user, (list = []))
      list.push({ traceId: row.traceId, startNs: BigInt(row.startNs) })
    }
    return byUser
  }
}

/** The stored position of the trace, or, when it is not stored yet, the place it would take. */
function positionIn(first: readonly Entry[], entry: Entry): number {
  const at = first.findIndex((e) => e.traceId === entry.traceId)
  if (at >= 0) return at
  let n = 0
  for (const e of first) if (before(e, entry)) n++
  return n
}
