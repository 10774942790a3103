import type { QueuedSpan, Span, Trace } from '@sieve/core'
import { z } from 'zod'

/**
 * Turns the span stream into whole traces. No I/O and an injected clock: the scorer drives it.
 *
 * - A trace closes when its root span has arrived (spans are exported when they end) and no span
 *   of it arrived for `quietPeriodMs`; or, as incomplete, when `maxTraceAgeMs` passed since its
 *   first span without its root; or, as incomplete, when it is the oldest open trace and the
 *   open traces exceed `maxOpenTraces` / `maxOpenSpans` / `maxOpenBytes` (an eviction).
 * - Offsets: for each partition, `commitPoints()` gives the offset of the oldest span of any trace
 *   not yet finished (open, closed, or being scored); everything before it may be committed. A
 *   crash therefore re-delivers every span of every unfinished trace: re-scored, never skipped.
 * - Late spans: the spans of the most recently scored traces are kept, up to `rememberSpans` spans
 *   and `rememberBytes` bytes. A new span of such a trace reopens it with all its spans; it is
 *   scored again when it closes, and the new scores replace the old ones (same check version, same
 *   row key). A late span of a trace no longer remembered starts a new, rootless trace; the scorer may complete it from
 *   storage when it closes (see Scorer's `loadStoredTrace`). A span already seen is ignored.
 * - Restored traces: after a restart on a queue that keeps nothing, the scorer reads unscored traces
 *   back from storage and `restore()`s them as they were, arrival times included, so they close by
 *   the rules above; they have no queue position. `unfinishedSince()` is how far back the scorer's
 *   recorded progress must stay for a crash now to lose nothing.
 */
export const assemblerOptionsSchema = z
  .object({
    quietPeriodMs: z.number().int().min(0).default(3000),
    maxTraceAgeMs: z.number().int().positive().default(300_000),
    // Spans with captured content weigh a few KiB each: these bounds hold ~15 s of 1,000 traces/s in 1-2 GiB.
    maxOpenTraces: z.number().int().positive().default(40_000),
    maxOpenSpans: z.number().int().positive().default(400_000),
    // What spans weighed on the wire (QueuedSpan.bytes); in memory they take about 2.7 times that.
    // The spans bounds hold small spans; these, large ones (a 32 KB prompt per span).
    maxOpenBytes: z
      .number()
      .int()
      .positive()
      .default(256 * 1024 * 1024),
    rememberSpans: z.number().int().min(0).default(50_000),
    rememberBytes: z
      .number()
      .int()
      .min(0)
      .default(64 * 1024 * 1024),
  })
  .strict()

export type AssemblerOptions = z.output<typeof assemblerOptionsSchema>

export type CloseReason = 'complete' | 'max_age' | 'evicted'

export interface ClosedTrace {
  trace: Trace
  reason: CloseReason
  /** Scored before: this closing re-scores it (its scores replace the earlier ones). */
  rescore: boolean
  /** Assembler time (ms) when the last span of the trace arrived. */
  lastArrivalMs: number
}

interface Pending {
  key: string
  projectId: string
  traceId: string
  spans: Map<string, Span>
  /** What its spans weighed on the wire. */
  bytes: number
  hasRoot: boolean
  /** Where its oldest span not yet committed lies in the queue; none for a restored trace until a span of it arrives. */
  position?: { partition: number; firstOffset: bigint }
  firstSeenMs: number
  lastSeenMs: number
  rescore: boolean
}

const keyOf = (span: Span): string => `${span.projectId}\u0000${span.traceId}`

export class TraceAssembler {
  readonly options: AssemblerOptions
  /** Open traces in order of last activity (a Map keeps insertion order; a touched trace moves to the end). */
  private readonly open = new Map<string, Pending>()
  /** Quiet but rootless, waiting for their root or their maximum age, in order of going quiet. */
  private readonly waiting = new Map<string, Pending>()
  private readonly ready: { pending: Pending; reason: CloseReason }[] = []
  /** Handed out by takeReady(), not yet finished() or failed(). */
  private readonly inFlight = new Set<Pending>()
  /** Closed (ready or in flight) by trace key: a span arriving now reopens the trace with these spans. */
  private readonly closing = new Map<string, Pending>()
  /** Which pending entry a handed-out trace came from. */
  private readonly handedOut = new WeakMap<ClosedTrace, Pending>()
  /** Scored traces whose spans are kept for late spans, oldest first. */
  private readonly recent = new Map<string, { spans: Span[]; bytes: number }>()
  private recentSpans = 0
  private recentBytes = 0
  private openSpanCount = 0
  private openByteCount = 0
  /** Spans of closed traces not yet finished (ready or in flight), and what they weighed. */
  private closedSpanCount = 0
  private closedByteCount = 0
  private readonly highest = new Map<number, bigint>()
  /** Per partition, the last point handed out by `commitPoints`, and the last one whose commit succeeded. */
  private readonly committed = new Map<number, bigint>()
  private readonly acknowledged = new Map<number, bigint>()
  evictions = 0
  lateSpans = 0

  constructor(
    options: Partial<AssemblerOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.options = assemblerOptionsSchema.parse(options)
  }

  get openTraces(): number {
    return this.open.size + this.waiting.size
  }

  get openSpans(): number {
    return this.openSpanCount
  }

  get openBytes(): number {
    return this.openByteCount
  }

  /**
   * Spans of traces closed and not yet scored and stored. The memory bounds above evict open traces;
   * closed ones must all be scored, so it is for the scorer to stop taking spans while these pile up.
   */
  get unscoredSpans(): number {
    return this.closedSpanCount
  }

  /** What the unscored spans weighed on the wire. */
  get unscoredBytes(): number {
    return this.closedByteCount
  }

  /** Traces not yet finished: open, closed and waiting to be scored, or being scored. */
  get unfinishedTraces(): number {
    return this.open.size + this.waiting.size + this.ready.length + this.inFlight.size
  }

  /**
   * When (assembler time) the first span of the oldest unfinished trace arrived; undefined when none
   * is. Every trace that got a span before it has been scored with that span, and its scores stored.
   */
  unfinishedSince(): number | undefined {
    let oldest: number | undefined
    const consider = (p: Pending) => {
      if (oldest === undefined || p.firstSeenMs < oldest) oldest = p.firstSeenMs
    }
    for (const p of this.open.values()) consider(p)
    for (const p of this.waiting.values()) consider(p)
    for (const p of this.inFlight) consider(p)
    for (const { pending } of this.ready) consider(pending)
    return oldest
  }

  add(batch: readonly QueuedSpan[]): void {
    const now = this.now()
    for (const { span, partition, offset, bytes } of batch) {
      const position = BigInt(offset)
      if (position > (this.highest.get(partition) ?? -1n)) this.highest.set(partition, position)
      const key = keyOf(span)
      let pending = this.open.get(key) ?? this.waiting.get(key)
      if (pending) {
        this.open.delete(key)
        this.waiting.delete(key)
      } else {
        pending = this.reopen(key, span, partition, position, now)
        if (!pending) continue
      }
      if (!pending.spans.has(span.spanId)) {
        pending.spans.set(span.spanId, span)
        pending.bytes += bytes
        this.openSpanCount++
        this.openByteCount += bytes
        if (span.parentSpanId === '') pending.hasRoot = true
      }
      if (!pending.position) pending.position = { partition, firstOffset: position }
      else if (position < pending.position.firstOffset) pending.position.firstOffset = position
      pending.lastSeenMs = now
      this.open.set(key, pending)
      // A trace that keeps growing past its maximum age closes now rather than never.
      if (now - pending.firstSeenMs >= this.options.maxTraceAgeMs) this.close(pending, pending.hasRoot ? 'complete' : 'max_age')
    }
    this.enforceLimits()
  }

  /** A new pending trace for a span with no open trace: fresh, or a scored trace receiving a late span. */
  private reopen(key: string, span: Span, partition: number, position: bigint, now: number): Pending | undefined {
    const closing = this.closing.get(key)
    const remembered = closing ? { spans: [...closing.spans.values()], bytes: closing.bytes } : this.recent.get(key)
    const pending: Pending = {
      key,
      projectId: span.projectId,
      traceId: span.traceId,
      spans: new Map(),
      bytes: 0,
      hasRoot: false,
      position: { partition, firstOffset: position },
      firstSeenMs: now,
      lastSeenMs: now,
      rescore: false,
    }
    if (remembered) {
      if (remembered.spans.some((s) => s.spanId === span.spanId)) return undefined // re-delivered, already scored
      if (!closing) {
        this.recent.delete(key)
        this.recentSpans -= remembered.spans.length
        this.recentBytes -= remembered.bytes
      }
      for (const s of remembered.spans) {
        pending.spans.set(s.spanId, s)
        if (s.parentSpanId === '') pending.hasRoot = true
      }
      pending.bytes = remembered.bytes
      this.openSpanCount += remembered.spans.length
      this.openByteCount += remembered.bytes
      pending.rescore = true
      this.lateSpans++
    }
    return pending
  }

  /**
   * A trace read back from storage, as it would be open had its spans arrived here between
   * `firstArrivalMs` and `lastArrivalMs` (assembler time): it closes when due by the usual rules,
   * at once when its quiet period or maximum age has passed. `rescore`: it was scored before. Give
   * traces in order of their last arrival, as `open` keeps them. Spans it already holds are kept.
   */
  restore(trace: Trace, firstArrivalMs: number, lastArrivalMs: number, rescore: boolean): void {
    const key = `${trace.projectId}\u0000${trace.traceId}`
    let pending = this.open.get(key) ?? this.waiting.get(key)
    if (pending) {
      this.open.delete(key)
      this.waiting.delete(key)
    } else {
      pending = {
        key,
        projectId: trace.projectId,
        traceId: trace.traceId,
        spans: new Map(),
        // Read back from storage, their wire size is unknown; they were within the bounds when they arrived.
        bytes: 0,
        hasRoot: false,
        firstSeenMs: firstArrivalMs,
        lastSeenMs: lastArrivalMs,
        rescore,
      }
    }
    for (const span of trace.spans) {
      if (pending.spans.has(span.spanId)) continue
      pending.spans.set(span.spanId, span)
      this.openSpanCount++
      if (span.parentSpanId === '') pending.hasRoot = true
    }
    pending.firstSeenMs = Math.min(pending.firstSeenMs, firstArrivalMs)
    pending.lastSeenMs = Math.max(pending.lastSeenMs, lastArrivalMs)
    this.open.set(key, pending)
    this.enforceLimits()
  }

  private close(pending: Pending, reason: CloseReason): void {
    this.open.delete(pending.key)
    this.waiting.delete(pending.key)
    this.openSpanCount -= pending.spans.size
    this.openByteCount -= pending.bytes
    this.closedSpanCount += pending.spans.size
    this.closedByteCount += pending.bytes
    this.closing.set(pending.key, pending)
    this.ready.push({ pending, reason })
  }

  private enforceLimits(): void {
    const { maxOpenTraces, maxOpenSpans, maxOpenBytes } = this.options
    while (this.openTraces > maxOpenTraces || ((this.openSpanCount > maxOpenSpans || this.openByteCount > maxOpenBytes) && this.openTraces > 0)) {
      const oldest = this.waiting.values().next().value ?? this.open.values().next().value
      if (!oldest) break
      this.evictions++
      this.close(oldest, 'evicted')
    }
  }

  /** Closes every open trace now: complete when its root arrived, else incomplete (at shutdown). */
  closeAll(): void {
    for (const pending of [...this.open.values(), ...this.waiting.values()]) this.close(pending, pending.hasRoot ? 'complete' : 'max_age')
  }

  /**
   * Closes what is due and hands out closed traces, the earliest closed first, at most `limit`; they
   * stay unfinished until finished() or failed(), the others wait for the next call.
   */
  takeReady(limit = Infinity): ClosedTrace[] {
    const now = this.now()
    const { quietPeriodMs, maxTraceAgeMs } = this.options
    for (const pending of this.open.values()) {
      if (now - pending.lastSeenMs < quietPeriodMs) break
      if (pending.hasRoot) this.close(pending, 'complete')
      else {
        this.open.delete(pending.key)
        this.waiting.set(pending.key, pending)
      }
    }
    for (const pending of this.waiting.values()) {
      if (now - pending.firstSeenMs >= maxTraceAgeMs) this.close(pending, 'max_age')
    }
    const out: ClosedTrace[] = []
    for (const { pending, reason } of this.ready.splice(0, limit)) {
      this.inFlight.add(pending)
      out.push({
        trace: {
          projectId: pending.projectId,
          traceId: pending.traceId,
          spans: [...pending.spans.values()],
          complete: reason !== 'evicted' && pending.hasRoot,
        },
        reason,
        rescore: pending.rescore,
        lastArrivalMs: pending.lastSeenMs,
      })
      this.handedOut.set(out[out.length - 1]!, pending)
    }
    return out
  }

  /** The traces are scored and their scores stored: release their offsets, remember their spans. */
  finished(traces: readonly ClosedTrace[]): void {
    for (const closed of traces) {
      const pending = this.handedOut.get(closed)
      if (!pending || !this.inFlight.delete(pending)) continue
      this.closedSpanCount -= pending.spans.size
      this.closedByteCount -= pending.bytes
      if (this.closing.get(pending.key) === pending) this.closing.delete(pending.key)
      const { rememberSpans, rememberBytes } = this.options
      if (rememberSpans > 0 && rememberBytes > 0 && !this.open.has(pending.key) && !this.waiting.has(pending.key)) {
        const spans = [...pending.spans.values()]
        const earlier = this.recent.get(pending.key)
        if (earlier) {
          this.recent.delete(pending.key)
          this.recentSpans -= earlier.spans.length
          this.recentBytes -= earlier.bytes
        }
        this.recent.set(pending.key, { spans, bytes: pending.bytes })
        this.recentSpans += spans.length
        this.recentBytes += pending.bytes
        for (const [key, old] of this.recent) {
          if (this.recentSpans <= rememberSpans && this.recentBytes <= rememberBytes) break
          this.recent.delete(key)
          this.recentSpans -= old.spans.length
          this.recentBytes -= old.bytes
        }
      }
    }
  }

  /** Scoring or storing failed: hand the traces out again on the next takeReady(). */
  failed(traces: readonly ClosedTrace[]): void {
    for (const closed of traces) {
      const pending = this.handedOut.get(closed)
      if (!pending || !this.inFlight.delete(pending)) continue
      this.ready.push({ pending, reason: closed.reason })
    }
  }

  /**
   * Per partition, the offset up to which everything is finished (exclusive), when it moved since
   * the last call: the oldest offset of an unfinished trace, else one past the highest offset seen.
   */
  commitPoints(): Map<number, string> {
    const oldest = new Map<number, bigint>()
    const consider = ({ position }: Pending) => {
      if (!position) return
      const current = oldest.get(position.partition)
      if (current === undefined || position.firstOffset < current) oldest.set(position.partition, position.firstOffset)
    }
    for (const p of this.open.values()) consider(p)
    for (const p of this.waiting.values()) consider(p)
    for (const p of this.inFlight) consider(p)
    for (const { pending } of this.ready) consider(pending)
    const points = new Map<number, string>()
    for (const [partition, highest] of this.highest) {
      const point = oldest.get(partition) ?? highest + 1n
      if (point > (this.committed.get(partition) ?? -1n)) {
        this.committed.set(partition, point)
        points.set(partition, point.toString())
      }
    }
    return points
  }

  /**
   * How the commit of `points` (from `commitPoints`) ended: a failed one's points are handed out
   * again by the next call, which would otherwise see nothing moved.
   */
  commitEnded(points: ReadonlyMap<number, string>, succeeded: boolean): void {
    for (const [partition, text] of points) {
      const point = BigInt(text)
      if (succeeded) this.acknowledged.set(partition, point)
      else if (this.committed.get(partition) === point) {
        const before = this.acknowledged.get(partition)
        if (before === undefined) this.committed.delete(partition)
        else this.committed.set(partition, before)
      }
    }
  }
}
