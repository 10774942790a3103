import type { Finding } from './finding.js'

/**
 * Detectors overlap (an email holds a name, an address holds a postcode): keep one finding per
 * stretch of text, preferring the longer, then the higher priority, so a whole address or a whole
 * email is replaced rather than pieces of it.
 */
export function resolve(findings: Finding[], priorityOf: (type: string) => number): Finding[] {
  if (findings.length < 2) return findings.filter((f) => f.end > f.start)
  const ranked = findings
    .filter((f) => f.end > f.start)
    .sort((a, b) => b.end - b.start - (a.end - a.start) || priorityOf(b.type) - priorityOf(a.type) || a.start - b.start)
  const kept: Finding[] = []
  for (const f of ranked) if (!kept.some((k) => f.start < k.end && k.start < f.end)) kept.push(f)
  return kept.sort((a, b) => a.start - b.start)
}
