import type { Finding } from './finding.js'

/**
 * Detectors overlap (an email holds a name, an address holds a postcode): keep one finding per
 * stretch of text, preferring the longer, then the higher priority, so a whole address or a whole
 * email is replaced rather than pieces of it.
 */
export function resolve(findings: Finding[], priorityOf: (type: string) => number): Finding[] {
  const ranked = findings.filter((f) => f.end > f.start)
  if (ranked.length < 2) return ranked
  sortStable(ranked, (a, b) => b.end - b.start - (a.end - a.start) || priorityOf(b.type) - priorityOf(a.type) || a.start - b.start)
  const kept: Finding[] = []
  for (const f of ranked) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f)
  return sortStable(kept, (a, b) => a.start - b.start)
}

/**
 * Insertion sort, stable like Array.prototype.sort and so giving the same order: a string holds a
 * handful of findings, for which the built-in sort's set-up (and its work array) costs more than the sorting.
 */
function sortStable<T>(items: T[], compare: (a: T, b: T) => number): T[] {
  for (let i = 1; i < items.length; i++) {
    const item = items[i]!
    let j = i - 1
    for (; j >= 0 && compare(items[j]!, item) > 0; j--) items[j + 1] = items[j]!
    items[j + 1] = item
  }
  return items
}
