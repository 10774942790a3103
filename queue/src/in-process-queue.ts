import {
  Backoff,
  QueueFullError,
  QueueUnavailableError,
  UnprocessableSpansError,
  type BackoffRange,
  type IncomingBodies,
  type PublishOutcome,
  type QuarantinedSpan,
  type QueueCapabilities,
  type QueuedSpan,
  type Saturation,
  type Span,
  type SpanQueue,
  type SubscribeOptions,
  type Subscription,
} from '@sieve/core'

/**
 * The embedded `SpanQueue`: spans wait in memory until every consumer group has handled them.
 *
 * - Bounded: a publish that would take the queue past `capacity` spans or `capacityBytes` bytes
 *   (as they came in) fails with QueueFullError (the receiver answers 429), so a slow store pushes
 *   back on clients instead of growing memory. `saturated()` says so before a request is read:
 *   full, its oldest span waiting past `maxWaitMs`, or a new request's spans expected to wait past
 *   it at the pace the gating groups store. The spans bound fits small spans; the bytes bound,
 *   large ones (a 32 KB prompt per span fills it at a thirtieth of the spans). Until a gating
 *   group has stored its first batch, which gives its pace, the queue takes what one batch of 1 KiB
 *   spans carries (`maxBatchSpans` KiB; one body alone always).
 * - Group commit: spans of all requests that arrive while a group's handler is busy (or within
 *   `lingerMs`) reach the handler as one batch of at most `maxBatchSpans` spans and `maxBatchBytes`
 *   bytes (one publish alone may be larger).
 * - Durability `handled`: publish() resolves only once every group named in `gates` handled the
 *   spans (the groups that store them; nothing in memory outlives the process).
 * - Quarantine: a batch the group refuses with UnprocessableSpansError (storage cannot take some
 *   span in it) is taken out of the group's lane, so the batches behind it go on at once. Beside
 *   the lane it is split by project, then halved until the failing spans are alone; the rest is
 *   handled, and each failing span goes to `deadLetters` and is reported to its publisher as
 *   quarantined. One project's bad span costs another project one extra insert.
 * - Any other failure (storage unavailable) is retried after a growing backoff; spans are never
 *   dropped. A gated publish whose spans failed `gateAttempts` times is rejected (503) while the
 *   retries go on, and so is every gated publish waiting behind them: nothing waits without
 *   bound. Until an attempt succeeds again the group is stalled (`stalled()`, for readiness).
 */
export interface InProcessQueueOptions {
  capacity?: number
  /** Bytes (of the request bodies that carried them) of the spans it holds at most (SIEVE_MAX_QUEUE_BYTES). */
  capacityBytes?: number
  /**
   * `saturated()` while the oldest span no group has taken yet waited longer than this, or while
   * what a gating group holds (and the bodies still to come) would take it longer to store at its
   * recent pace: new requests are shed (429) rather than answered after the sender gave up
   * (SIEVE_MAX_QUEUE_WAIT_MS).
   */
  maxWaitMs?: number
  maxBatchSpans?: number
  /**
   * What a batch's spans came in, at most: large spans make small batches, so an insert's payload
   * and the engine's memory for it stay bounded whatever the span size.
   */
  maxBatchBytes?: number
  lingerMs?: number
  retryInitialMs?: number
  retryMaxMs?: number
  gateAttempts?: number
  /**
   * The consumer groups a publish waits for: those whose handling makes spans durable (`sieve up`:
   * the ingester's). A group that is not subscribed is not waited for.
   */
  gates?: readonly string[]
  /**
   * Where a span goes that a group refused, alone, with UnprocessableSpansError (the batch is split
   * until the failing spans are alone): the embedded counterpart of Kafka's dead-letter topic. Once
   * it resolved the span counts as handled, and a gated publish reports it in `PublishOutcome`.
   * Without it such spans are retried like any failure.
   */
  deadLetters?: (span: QueuedSpan, error: UnprocessableSpansError, group: string) => Promise<void>
  /** Told of every failed batch, for logs (the error in full: it may quote stored data). */
  onError?: (group: string, error: unknown, attempt: number) => void
}

interface Waiter {
  resolve(outcome: PublishOutcome): void
  reject(error: Error): void
}

/** The spans of one publish, as one group sees them. */
interface Entry {
  spans: QueuedSpan[]
  /** When it was published (performance.now()). */
  at: number
  /** What each of its spans weighs (QueuedSpan.bytes): a publish's spans share its body. */
  spanBytes: number
  waiter?: Waiter
  /** Spans neither handled nor dead-lettered yet. */
  unsettled: number
  quarantined: QuarantinedSpan[]
}

/** Spans, and the bytes they came in. */
interface Load {
  spans: number
  bytes: number
}

/** A load handled in so many milliseconds. */
interface Work extends Load {
  ms: number
}

interface Group {
  options: SubscribeOptions
  entries: Entry[]
  depth: number
  /** What the spans counted in `depth` weigh. */
  bytes: number
  /** What its handled batches took, recent ones weighing most: its pace. */
  pace?: Work
  /** The batch being handled, and when it was handed over (performance.now()). */
  handling?: Load & { since: number }
  busy: boolean
  timer?: NodeJS.Timeout
  idle: (() => void)[]
  closed: boolean
  /** Refused batches being split beside the lane. */
  isolating: Set<Promise<void>>
  /** Attempts in a row that failed for a reason other than the data, and when the first did. */
  failures: number
  failingSince?: Date
}

/** Which publish, and which of its spans, a queued span is: for settling the parts of a split batch. */
type Owners = Map<QueuedSpan, { entry: Entry; index: number }>

const NOTHING_INCOMING: IncomingBodies = { bytes: 0, asking: 0 }

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export class InProcessQueue implements SpanQueue {
  readonly capabilities = { durability: 'handled', forwardsProtobuf: false } as const satisfies QueueCapabilities
  private readonly groups = new Map<string, Group>()
  private nextOffset = 0n
  private closed = false
  private readonly capacity: number
  private readonly capacityBytes: number
  private readonly maxWaitMs: number
  private readonly maxBatchSpans: number
  private readonly maxBatchBytes: number
  /** What a gating group takes before it has a pace: one batch of 1 KiB spans. */
  private readonly startBytes: number
  private readonly lingerMs: number
  private readonly retry: BackoffRange
  private readonly gateAttempts: number
  private readonly gates: ReadonlySet<string>

  constructor(private readonly options: InProcessQueueOptions = {}) {
    this.capacity = options.capacity ?? 100_000
    this.capacityBytes = options.capacityBytes ?? Infinity
    this.maxWaitMs = options.maxWaitMs ?? Infinity
    this.maxBatchSpans = options.maxBatchSpans ?? 8192
    this.maxBatchBytes = options.maxBatchBytes ?? 32 * 1024 * 1024
    this.startBytes = Math.min(this.maxBatchSpans * 1024, this.maxBatchBytes)
    this.lingerMs = options.lingerMs ?? 5
    this.retry = { baseMs: options.retryInitialMs ?? 100, maxMs: options.retryMaxMs ?? 5000 }
    this.gateAttempts = options.gateAttempts ?? 3
    this.gates = new Set(options.gates)
  }

  /** Spans published but not yet handled by the slowest group. */
  depth(): number {
    let depth = 0
    for (const group of this.groups.values()) depth = Math.max(depth, group.depth)
    return depth
  }

  /** What the spans of the group furthest behind in bytes weigh. */
  bytes(): number {
    let bytes = 0
    for (const group of this.groups.values()) bytes = Math.max(bytes, group.bytes)
    return bytes
  }

  /** Why `spans` more spans of `bytes` would not fit; undefined when they would. */
  private full(spans: number, bytes: number): string | undefined {
    const depth = this.depth()
    if (depth + spans > this.capacity) return `the queue holds ${depth} of ${this.capacity} spans; retry later`
    const held = this.bytes()
    // Nothing held takes any one request: the body limit bounds it, and it is never refused forever.
    if (held > 0 && held + bytes > this.capacityBytes) return `the queue holds ${held} of ${this.capacityBytes} bytes of spans; retry later`
    return undefined
  }

  /**
   * Full; or its oldest span not taken by a group waited past `maxWaitMs`; or a gating group would
   * take longer than that to store what it holds and the bodies coming in: the receiver sheds
   * requests (429). The last one bounds the wait of the newest request, which the oldest span's
   * wait does not: a burst fills the queue in a moment, and then the last request in waits for all
   * of it. Before its first batch is stored a group has no pace, and that batch is its slowest (the
   * engine cold): a burst taken then waited for all of it, past a sender's 10 s.
   */
  saturated(incoming: IncomingBodies = NOTHING_INCOMING): Saturation | undefined {
    // Full: no room left for one more span of one more byte.
    const full = this.full(1, 1)
    if (full) return { reason: 'queue_full', message: full }
    const now = performance.now()
    for (const group of this.groups.values()) {
      const waited = now - (group.entries[0]?.at ?? now)
      if (waited > this.maxWaitMs) {
        return { reason: 'queue_wait', message: `spans wait ${Math.round(waited)} ms in the queue, over ${this.maxWaitMs} ms; retry later` }
      }
      // A failing store is no pace: its publishers are answered 503 (`failed`), and it is unready.
      if (!this.gates.has(group.options.group) || group.failures > 0) continue
      const unpaced = this.beforePace(group, incoming)
      if (unpaced) return unpaced
      const expected = expectedWaitMs(group, incoming.bytes, now)
      if (expected > this.maxWaitMs) {
        return {
          reason: 'queue_wait',
          message: `the spans queued take about ${Math.round(expected)} ms to store at the recent pace, over ${this.maxWaitMs} ms; retry later`,
        }
      }
    }
    return undefined
  }

  /** Before a group's first batch is stored: what is held and coming past one batch of 1 KiB spans. */
  private beforePace(group: Group, incoming: IncomingBodies): Saturation | undefined {
    if (group.pace) return undefined
    const coming = group.bytes + incoming.bytes
    // One body alone always fits, as under every bytes bound: the body limit bounds it.
    const alone = group.depth === 0 && incoming.bytes <= incoming.asking
    if (alone || coming <= this.startBytes) return undefined
    return {
      reason: 'queue_wait',
      message: `storage has not stored a batch yet, so its pace is unknown: until then the queue takes ${this.startBytes} bytes of spans at a time (${coming} held and coming); retry later`,
    }
  }

  /**
   * Why spans cannot be stored now: a gating group whose last `gateAttempts` or more attempts
   * all failed for a reason other than the data. Undefined while storage makes progress.
   */
  stalled(): string | undefined {
    for (const group of this.groups.values()) {
      if (!this.gates.has(group.options.group) || group.failures < this.gateAttempts) continue
      return `consumer group '${group.options.group}' has failed ${group.failures} attempts in a row since ${group.failingSince?.toISOString()}`
    }
    return undefined
  }

  async publish(spans: Span[], bytes = 0): Promise<PublishOutcome | void> {
    if (this.closed) throw new QueueUnavailableError('the queue is shutting down')
    if (spans.length === 0) return
    const spanBytes = Math.ceil(bytes / spans.length)
    const full = this.full(spans.length, spanBytes * spans.length)
    if (full) throw new QueueFullError(full)
    const queued = spans.map((span) => ({ span, partition: 0, offset: (this.nextOffset++).toString(), bytes: spanBytes }))
    const waits: Promise<PublishOutcome>[] = []
    const at = performance.now()
    for (const group of this.groups.values()) {
      const entry: Entry = { spans: queued, at, spanBytes, unsettled: queued.length, quarantined: [] }
      if (this.gates.has(group.options.group)) {
        waits.push(
          new Promise<PublishOutcome>((resolve, reject) => {
            entry.waiter = { resolve, reject }
          }),
        )
      }
      group.entries.push(entry)
      group.depth += queued.length
      group.bytes += spanBytes * queued.length
      this.schedule(group)
    }
    const outcomes = await Promise.all(waits)
    // Two gating groups may both have kept a span aside: report it once.
    const quarantined = new Map<number, QuarantinedSpan>()
    for (const outcome of outcomes) for (const q of outcome.quarantined) if (!quarantined.has(q.index)) quarantined.set(q.index, q)
    if (quarantined.size > 0) return { quarantined: [...quarantined.values()].sort((a, b) => a.index - b.index) }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    if (this.closed) throw new QueueUnavailableError('the queue is shutting down')
    if (this.groups.has(options.group)) throw new Error(`consumer group '${options.group}' already has a subscriber in this process`)
    const group: Group = { options, entries: [], depth: 0, bytes: 0, busy: false, idle: [], closed: false, isolating: new Set(), failures: 0 }
    this.groups.set(options.group, group)
    // Its one partition is this member's from now on: no other member ever handled any of it.
    options.onAssigned?.()
    return {
      // Nothing survives the process, so there is no position to store.
      commit: async () => {},
      close: async () => {
        await this.drain(group)
        group.closed = true
        this.groups.delete(options.group)
      },
    }
  }

  /** Stops taking spans, waits until every group handled what it holds. */
  async close(): Promise<void> {
    this.closed = true
    await Promise.all([...this.groups.values()].map((g) => this.drain(g)))
    for (const group of this.groups.values()) group.closed = true
    this.groups.clear()
  }

  private drain(group: Group): Promise<void> {
    if (this.isIdle(group)) return Promise.resolve()
    return new Promise((resolve) => group.idle.push(resolve))
  }

  private isIdle(group: Group): boolean {
    return !group.busy && group.entries.length === 0 && group.isolating.size === 0
  }

  private wakeIdle(group: Group): void {
    if (this.isIdle(group)) for (const wake of group.idle.splice(0)) wake()
  }

  private schedule(group: Group): void {
    if (group.busy || group.entries.length === 0) return
    if (group.depth >= this.maxBatchSpans || group.bytes >= this.maxBatchBytes || this.lingerMs === 0) {
      void this.run(group)
      return
    }
    if (group.timer) return
    group.timer = setTimeout(() => {
      group.timer = undefined
      void this.run(group)
    }, this.lingerMs)
  }

  /** The entries of the next batch, and what they hold. */
  private takeBatch(group: Group): { entries: Entry[]; load: Load } {
    const entries: Entry[] = []
    const load: Load = { spans: 0, bytes: 0 }
    while (group.entries.length > 0) {
      const next = group.entries[0] as Entry
      const nextBytes = next.spanBytes * next.spans.length
      if (entries.length > 0 && (load.spans + next.spans.length > this.maxBatchSpans || load.bytes + nextBytes > this.maxBatchBytes)) break
      entries.push(group.entries.shift() as Entry)
      load.spans += next.spans.length
      load.bytes += nextBytes
    }
    return { entries, load }
  }

  private async run(group: Group): Promise<void> {
    if (group.timer) {
      clearTimeout(group.timer)
      group.timer = undefined
    }
    group.busy = true
    while (group.entries.length > 0 && !group.closed) {
      const { entries, load } = this.takeBatch(group)
      await this.deliver(group, entries, load)
    }
    group.busy = false
    this.wakeIdle(group)
  }

  /**
   * Hands the batch to the group until it is handled, backing off between attempts; a batch
   * refused for its data is handed to `isolate` instead, and the lane moves on.
   */
  private async deliver(group: Group, entries: Entry[], load: Load): Promise<void> {
    const batch = entries.flatMap((e) => e.spans)
    const handling = { ...load, since: performance.now() }
    group.handling = handling
    const backoff = new Backoff(this.retry)
    for (let attempt = 1; ; attempt++) {
      try {
        await group.options.onBatch(batch)
        group.handling = undefined
        group.pace = paced(group.pace, { spans: handling.spans, bytes: handling.bytes, ms: performance.now() - handling.since })
        group.failures = 0
        for (const entry of entries) this.settle(group, entry, entry.spans.length)
        return
      } catch (error) {
        this.options.onError?.(group.options.group, error, attempt)
        if (error instanceof UnprocessableSpansError && this.options.deadLetters) {
          // Storage answered, about the data: it is up. The lane goes on while the batch is split.
          group.handling = undefined
          group.failures = 0
          this.isolate(group, entries, error)
          return
        }
        this.failed(group, entries, attempt)
        await sleep(backoff.next())
      }
    }
  }

  /**
   * Splits a refused batch beside the lane: by project first, each project's part tried on its
   * own (a project whose part is stored is done at once), then halves of a refused part until
   * each refused span is alone and goes to the dead letters.
   */
  private isolate(group: Group, entries: Entry[], error: UnprocessableSpansError): void {
    const owners: Owners = new Map()
    const projects = new Map<string, QueuedSpan[]>()
    for (const entry of entries) {
      entry.spans.forEach((queued, index) => {
        owners.set(queued, { entry, index })
        const part = projects.get(queued.span.projectId)
        if (part) part.push(queued)
        else projects.set(queued.span.projectId, [queued])
      })
    }
    const parts = [...projects.values()]
    const work =
      parts.length > 1 ? Promise.all(parts.map((part) => this.narrow(group, owners, part))).then(() => {}) : this.narrow(group, owners, parts[0] ?? [], error)
    const tracked: Promise<void> = work.finally(() => {
      group.isolating.delete(tracked)
      this.wakeIdle(group)
    })
    group.isolating.add(tracked)
  }

  /** Stores what storage takes of `spans` and dead-letters the rest, one span at a time; `refused`: already known to fail. */
  private async narrow(group: Group, owners: Owners, spans: QueuedSpan[], refused?: UnprocessableSpansError): Promise<void> {
    const error = refused ?? (await this.attempt(group, owners, spans))
    if (error === undefined || spans.length === 0) return
    if (spans.length === 1) {
      await this.quarantine(group, owners, spans[0]!, error)
      return
    }
    const half = Math.ceil(spans.length / 2)
    await this.narrow(group, owners, spans.slice(0, half))
    await this.narrow(group, owners, spans.slice(half))
  }

  /** One part of a split batch, retried like a batch until stored (undefined) or refused for its data (the error). */
  private async attempt(group: Group, owners: Owners, spans: QueuedSpan[]): Promise<UnprocessableSpansError | undefined> {
    const backoff = new Backoff(this.retry)
    for (let attempt = 1; ; attempt++) {
      try {
        await group.options.onBatch(spans)
        group.failures = 0
        for (const queued of spans) this.settleSpan(group, owners, queued)
        return undefined
      } catch (error) {
        this.options.onError?.(group.options.group, error, attempt)
        if (error instanceof UnprocessableSpansError) {
          group.failures = 0
          return error
        }
        this.failed(group, entriesOf(owners, spans), attempt)
        await sleep(backoff.next())
      }
    }
  }

  /** A span storage refused on its own: to the dead letters (retried until they take it), then settled as quarantined. */
  private async quarantine(group: Group, owners: Owners, queued: QueuedSpan, error: UnprocessableSpansError): Promise<void> {
    const backoff = new Backoff(this.retry)
    for (let attempt = 1; ; attempt++) {
      try {
        await this.options.deadLetters!(queued, error, group.options.group)
        break
      } catch (deadLetterError) {
        this.options.onError?.(group.options.group, deadLetterError, attempt)
        this.failed(group, entriesOf(owners, [queued]), attempt)
        await sleep(backoff.next())
      }
    }
    this.settleSpan(group, owners, queued, `${error.reason}; kept as a dead letter`)
  }

  /**
   * An attempt failed for a reason other than the data. Past `gateAttempts` the publishers
   * waiting on these spans, and on every span queued behind them, are answered: unavailable.
   * The message is the queue's own; the error, which may quote stored rows of any project, only
   * goes to `onError`.
   */
  private failed(group: Group, entries: Iterable<Entry>, attempt: number): void {
    if (group.failures++ === 0) group.failingSince = new Date()
    if (attempt < this.gateAttempts) return
    const unavailable = new QueueUnavailableError(`storage did not take the spans (${attempt} attempts failed); they stay queued and are retried`)
    for (const entry of [...entries, ...group.entries]) {
      entry.waiter?.reject(unavailable)
      entry.waiter = undefined
    }
  }

  private settle(group: Group, entry: Entry, count: number): void {
    entry.unsettled -= count
    group.depth -= count
    group.bytes -= count * entry.spanBytes
    if (entry.unsettled === 0) entry.waiter?.resolve({ quarantined: entry.quarantined })
  }

  private settleSpan(group: Group, owners: Owners, queued: QueuedSpan, quarantined?: string): void {
    const owner = owners.get(queued)!
    if (quarantined !== undefined) owner.entry.quarantined.push({ index: owner.index, reason: quarantined })
    this.settle(group, owner.entry, 1)
  }
}

/** How much a new batch's figures count in a group's pace: the last few batches set it. */
const PACE_WEIGHT = 0.3

function paced(pace: Work | undefined, batch: Work): Work {
  if (!pace) return batch
  const blend = (before: number, now: number) => before * (1 - PACE_WEIGHT) + now * PACE_WEIGHT
  return { spans: blend(pace.spans, batch.spans), bytes: blend(pace.bytes, batch.bytes), ms: blend(pace.ms, batch.ms) }
}

/**
 * Milliseconds the group would take to store what it holds and `incomingBytes` more, at its pace
 * and no faster than the batch in hand goes (a batch handled for long is a slow store, or the
 * first batch of a burst). 0 while nothing says how fast it stores.
 */
function expectedWaitMs(group: Group, incomingBytes: number, now: number): number {
  let spansPerMs = group.pace && group.pace.ms > 0 ? group.pace.spans / group.pace.ms : Infinity
  let bytesPerMs = group.pace && group.pace.ms > 0 && group.pace.bytes > 0 ? group.pace.bytes / group.pace.ms : Infinity
  if (group.handling) {
    const elapsed = now - group.handling.since
    spansPerMs = Math.min(spansPerMs, group.handling.spans / elapsed)
    if (group.handling.bytes > 0) bytesPerMs = Math.min(bytesPerMs, group.handling.bytes / elapsed)
  }
  return Math.max(group.depth / spansPerMs, (group.bytes + incomingBytes) / bytesPerMs)
}

function entriesOf(owners: Owners, spans: QueuedSpan[]): Set<Entry> {
  const entries = new Set<Entry>()
  for (const queued of spans) entries.add(owners.get(queued)!.entry)
  return entries
}
