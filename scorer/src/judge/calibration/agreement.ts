/** Agreement between two raters over the same items, each a pair of levels. */
export type Pair = readonly [number, number]

export interface Agreement {
  n: number
  /** Share of items with the same level. */
  exact: number
  /** Share of items at most one level apart. */
  withinOne: number
  /** Cohen's kappa (unweighted): agreement beyond what the raters' level frequencies give by chance. */
  kappa: number
}

export function agreement(pairs: readonly Pair[]): Agreement {
  const n = pairs.length
  if (n === 0) return { n: 0, exact: 0, withinOne: 0, kappa: 0 }
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
  const po = exact / n
  let pe = 0
  for (const [level, count] of a) pe += (count / n) * ((b.get(level) ?? 0) / n)
  // Both raters always gave one and the same level: chance explains everything, kappa is undefined; 1 by convention when they agree.
  const kappa = pe === 1 ? (po === 1 ? 1 : 0) : (po - pe) / (1 - pe)
  return { n, exact: po, withinOne: withinOne / n, kappa }
}
