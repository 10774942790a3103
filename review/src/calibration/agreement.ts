/** Agreement between two raters over the same items, each a pair of levels. */
export type Pair = readonly [number, number]

export interface Agreement {
  n: number
  /** Share of items with the same level. */
  exact: number
  /** Share of items at most one level apart. */
  withinOne: number
  /** 95% Wilson score interval of `withinOne`: what `n` items allow one to say of it. */
  withinOneCi: { low: number; high: number }
  /** Cohen's kappa (unweighted): exact agreement beyond what the raters' level frequencies give by chance. */
  kappa: number
  /**
   * Cohen's kappa with quadratic weights: levels are ordinal, so a disagreement of two levels weighs
   * four times one of one level. What trust is judged on (`judge.calibration.minKappa`).
   */
  weightedKappa: number
}

/** z of a two-sided 95% interval. */
const Z95 = 1.959963984540054

/** Wilson score interval of a proportion `successes / n` (0..1 both when n is 0). */
export function wilsonInterval(successes: number, n: number, z = Z95): { low: number; high: number } {
  if (n === 0) return { low: 0, high: 1 }
  const p = successes / n
  const z2 = z * z
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n)
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/**
 * Kappa as 1 − observed disagreement / disagreement expected by chance, each weighted by `weight`
 * of the two levels' distance (unweighted: 1 for any difference). Both raters always gave one and
 * the same level: chance explains everything and kappa is undefined; 1 by convention when they
 * agree (the `minLabels` rule, not kappa, guards against a set that small or that uniform).
 */
function kappaOf(pairs: readonly Pair[], a: ReadonlyMap<number, number>, b: ReadonlyMap<number, number>, weight: (distance: number) => number): number {
  const n = pairs.length
  let observed = 0
  for (const [x, y] of pairs) observed += weight(Math.abs(x - y))
  let expected = 0
  for (const [x, cx] of a) for (const [y, cy] of b) expected += (weight(Math.abs(x - y)) * cx * cy) / n
  if (expected === 0) return observed === 0 ? 1 : 0
  return 1 - observed / expected
}

export function agreement(pairs: readonly Pair[]): Agreement {
  const n = pairs.length
  if (n === 0) return { n: 0, exact: 0, withinOne: 0, withinOneCi: wilsonInterval(0, 0), kappa: 0, weightedKappa: 0 }
  let exact = 0
  let withinOne = 0
  const a = new Map<number, number>()
  const b = new Map<number, number>()
  for (const [x, y] of pairs) {
    if (x === y) exact++
    if (Math.abs(x - y) <= 1) withinOne++
    a.set(x, (a.get(x) ?? 0) + 1)
    b.set(y, (b.get(y) ?? 0) + 1)
  }
  return {
    n,
    exact: exact / n,
    withinOne: withinOne / n,
    withinOneCi: wilsonInterval(withinOne, n),
    kappa: kappaOf(pairs, a, b, (d) => (d === 0 ? 0 : 1)),
    // (i − j)² / (k − 1)² in the textbook form; the scale's (k − 1)² divides both sums and cancels.
    weightedKappa: kappaOf(pairs, a, b, (d) => d * d),
  }
}
