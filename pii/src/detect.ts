import type { Detector, Finding } from './finding.js'
import { resolve } from './resolve.js'
import { TextScan } from './text-scan.js'

/**
 * Runs detectors over one string and settles their overlaps (see resolve.ts): where personal and
 * secret values sit, one finding per stretch of text.
 */
export function detectPii(text: string, detectors: readonly Detector[]): Finding[] {
  return detectPiiEach([text], detectors)[0]!
}

/**
 * A type ranks as the first detector that names it as its own; one that a detector reports besides
 * its own (URL_PARAM beside URL_CREDENTIALS) ranks as that detector.
 */
function declaredPriorities(detectors: readonly Detector[]): Map<string, number> {
  const priorities = new Map<string, number>()
  for (const d of detectors) if (!priorities.has(d.type)) priorities.set(d.type, d.priority)
  return priorities
}

/**
 * detectPii for many strings at once, the same findings for each. The detectors take turns over the
 * whole batch rather than over one string: a detector's regexes then run hundreds of times in a row,
 * which the processor runs about a fifth faster than the same work interleaved string by string.
 */
export function detectPiiEach(texts: readonly string[], detectors: readonly Detector[]): Finding[][] {
  const scans = texts.map((text) => new TextScan(text))
  const found: Finding[][] = texts.map(() => [])
  // Made at the first finding: a batch without one needs no ranks.
  let priorities: Map<string, number> | undefined
  for (const d of detectors) {
    for (let i = 0; i < texts.length; i++) {
      for (const f of d.find(texts[i]!, scans[i]!)) {
        priorities ??= declaredPriorities(detectors)
        if (!priorities.has(f.type)) priorities.set(f.type, d.priority)
        found[i]!.push(f)
      }
    }
  }
  const priorityOf = (type: string) => priorities!.get(type)!
  return found.map((all) => (all.length ? resolve(all, priorityOf) : all))
}
