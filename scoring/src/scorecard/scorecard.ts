import type { Scorecard, ScorecardItem } from './scorecard-config.js'

/** One score of the trace as the card reads it: a check's, a rubric's weighted score, a dimension's. */
export interface ScoreSeen {
  name: string
  value: number
  passed: boolean
  /** Set when the score is no score (a check that threw, a judge error, evidence not found): never a fail. */
  error?: string
}

/**
 * pass / fail: the item's score, read against its `min` or its own pass. missing: no score (a check
 * that did not apply, a judge that did not sample the trace, or has not answered yet). error: the
 * score is kept out (see ScoreSeen.error).
 */
export type ItemState = 'pass' | 'fail' | 'missing' | 'error'

export interface ScorecardItemResult extends ScorecardItem {
  state: ItemState
  value?: number
}

export interface ScorecardResult {
  card: string
  passAt: number
  configHash: string
  /** Weighted mean of the items that have a score. */
  value: number
  /** value ≥ passAt and no gate failed. */
  passed: boolean
  /** Gates whose item failed: each alone fails the trace. */
  failedGates: string[]
  /** Items without a score yet; a verdict stands on the others (the judge may add its items later). */
  missing: string[]
  items: ScorecardItemResult[]
}

function itemResult(item: ScorecardItem, seen: ScoreSeen | undefined): ScorecardItemResult {
  if (!seen) return { ...item, state: 'missing' }
  if (seen.error) return { ...item, state: 'error' }
  const passed = item.min !== undefined ? seen.value >= item.min : seen.passed
  return { ...item, state: passed ? 'pass' : 'fail', value: seen.value }
}

/**
 * The card's verdict on a trace's scores, or undefined when no item of the card has a score (there
 * is nothing to say yet). A gate that failed fails the trace whatever the weighted total; a gate
 * without a score neither passes nor fails it.
 */
export function scoreCard(card: Scorecard, scores: readonly ScoreSeen[]): ScorecardResult | undefined {
  const byName = new Map(scores.map((s) => [s.name, s]))
  const items = card.items.map((item) => itemResult(item, byName.get(item.name)))
  const scored = items.filter((i) => i.state === 'pass' || i.state === 'fail')
  if (!scored.length) return undefined
  const failedGates = scored.filter((i) => i.gate && i.state === 'fail').map((i) => i.name)
  const weight = scored.reduce((n, i) => n + i.weight, 0)
  // Only pure gates scored: the total is theirs (all passed or not).
  const value = weight > 0 ? scored.reduce((n, i) => n + i.weight * i.value!, 0) / weight : failedGates.length ? 0 : 1
  return {
    card: card.name,
    passAt: card.passAt,
    configHash: card.configHash,
    value,
    passed: value >= card.passAt && failedGates.length === 0,
    failedGates,
    missing: items.filter((i) => i.state === 'missing').map((i) => i.name),
    items,
  }
}

/** One line for people: "0.62 < 0.80; gate prohibited_tools failed". */
export function explainScorecard(r: ScorecardResult): string {
  const total = `weighted ${r.value.toFixed(3)} ${r.value >= r.passAt ? '≥' : '<'} ${r.passAt}`
  const gates = r.failedGates.length ? `; gate${r.failedGates.length > 1 ? 's' : ''} failed: ${r.failedGates.join(', ')}` : ''
  const missing = r.missing.length ? `; not scored yet: ${r.missing.join(', ')}` : ''
  return `${total}${gates}${missing}`
}
