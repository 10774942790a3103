/**
 * A panel's verdict on one dimension: the level more than half the judges gave, if any. Any split
 * is a disagreement; the trace then goes up for review rather than being averaged into a level
 * nobody chose.
 */
export function panelMajority(scores: readonly number[]): { majority: number | undefined; disagreement: boolean } {
  const counts = new Map<number, number>()
  for (const s of scores) counts.set(s, (counts.get(s) ?? 0) + 1)
  let majority: number | undefined
  for (const [score, n] of counts) if (n * 2 > scores.length) majority = score
  return { majority, disagreement: counts.size > 1 }
}
