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
 * detectPii for many strings at once, the same findings for each. The detectors take turns over the
 * whole batch rather than over one string: a detector's regexes then run hundreds of times in a row,
 * which the processor runs about a fifth faster than the same work interleaved string by string.
 */
export function detectPiiEach(texts: readonly string[], detectors: readonly Detector[]): Finding[][] {
  const scans = texts.map((text) => new TextScan(text))
  const found: Finding[][] = texts.map(() => [])
  // Per string, made at its first finding: a string without one needs no map.
  const priorities: (Map<string, number> | undefined)[] = new Array(texts.length)
  for (const d of detectors) {
    for (let i = 0; i < texts.length; i++) {
      for (const f of d.find(texts[i]!, scans[i]!)) {
        // A detector may report more than one type (URL_CREDENTIALS and URL_PARAM): each ranks as its detector.
        ;(priorities[i] ??= new Map()).set(f.type, d.priority)
        found[i]!.push(f)
      }
    }
  }
  return found.map((all, i) => (all.length ? resolve(all, (type) => priorities[i]!.get(type) ?? 0) : all))
}
