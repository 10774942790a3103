/** The first delay and the longest one; each retry doubles the one before, up to `maxMs`. */
export interface BackoffRange {
  baseMs: number
  maxMs: number
}

export interface BackoffOptions {
  /**
   * Full jitter: a random delay up to the doubled one, so many processes failing on one
   * rate limit or outage do not all retry at the same moment. Off by default: a consumer
   * retrying its own storage or broker has no one to fall out of step with.
   */
  jitter?: boolean
  /** The server's Retry-After, in milliseconds: the delay is never shorter (but still at most `maxMs`). */
  retryAfterMs?: number
  /** Stands in for Math.random, for tests. */
  random?: () => number
}

/**
 * 2 ** attempt is Infinity past 1023, and 0 × Infinity is NaN: a loop that never gives up must
 * not reach it. A base of 1 ms reaches any cap a timer can wait (2^31 ms) by attempt 31, so
 * stopping the exponent at 64 changes no delay.
 */
const MAX_EXPONENT = 64

/** Delay before retry number `attempt` (0-based): `baseMs` · 2^attempt, at most `maxMs`. */
export function backoffDelay(attempt: number, range: BackoffRange, options: BackoffOptions = {}): number {
  const ceiling = Math.min(range.maxMs, range.baseMs * 2 ** Math.min(attempt, MAX_EXPONENT))
  const delay = options.jitter ? Math.round(ceiling * (options.random ?? Math.random)()) : ceiling
  return Math.min(range.maxMs, Math.max(options.retryAfterMs ?? 0, delay))
}

/**
 * The delays of one run of failures, for a caller that keeps retrying the same work: `next()`
 * after each failure, `reset()` after a success, so the next failure starts again at `baseMs`.
 */
export class Backoff {
  private attempt = 0

  constructor(
    private readonly range: BackoffRange,
    private readonly options: Omit<BackoffOptions, 'retryAfterMs'> = {},
  ) {}

  next(retryAfterMs?: number): number {
    return backoffDelay(this.attempt++, this.range, { ...this.options, retryAfterMs })
  }

  reset(): void {
    this.attempt = 0
  }
}

/** Retry-After as seconds or an HTTP date, in milliseconds; 0 when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number {
  if (!value) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - now) : 0
}
