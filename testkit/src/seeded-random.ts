/**
 * A repeatable random sequence for property tests: the same seed gives the same cases on every run,
 * so a failure reproduces. mulberry32, whose low bits are as random as its high ones (a linear
 * congruential sequence taken modulo a small n repeats within a few draws).
 */
export interface SeededRandom {
  /** A number in [0, 1). */
  float(): number
  /** An integer in [0, n). */
  below(n: number): number
}

export function seededRandom(seed: number): SeededRandom {
  let s = seed >>> 0
  const float = (): number => {
    s = (s + 0x6d2b79f5) >>> 0
    let t = Math.imul(s ^ (s >>> 15), 1 | s)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { float, below: (n) => Math.floor(float() * n) }
}
