/**
 * The arithmetic and the clock Sieve's benchmarks share. They time work in CPU seconds, not wall
 * time: other processes on a shared machine would count against the work in wall time.
 */

/** The value at percentile `p` (0–100) of values sorted in ascending order; NaN when there are none. */
export const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN

/** The middle value (of an even count, the upper of the two middle ones); NaN when there are none. */
export const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  )

/** `count` things in `ms` milliseconds, per second, rounded. */
export const rate = (count: number, ms: number): number => Math.round((count / ms) * 1000)

/** CPU seconds this process has used so far, all its threads. */
export function processCpuSeconds(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1e6
}
