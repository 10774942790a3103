/**
 * Delay before retry number `attempt` (0-based): exponential with full jitter, so many scorer
 * instances hitting one rate limit do not retry in lockstep; never shorter than the server's
 * Retry-After, never longer than `maxMs`.
 */
export function backoffDelay(attempt: number, opts: { baseMs: number; maxMs: number }, retryAfterMs = 0, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** attempt)
  return Math.min(opts.maxMs, Math.max(retryAfterMs, Math.round(ceiling * random())))
}

/** Retry-After as seconds or an HTTP date, in milliseconds; 0 when absent or unreadable. */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number {
  if (!value) return 0
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000)
  const at = Date.parse(value)
  return Number.isFinite(at) ? Math.max(0, at - now) : 0
}
