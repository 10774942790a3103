import type { Detector, Finding } from './finding.js'
import { resolve } from './resolve.js'
import { TextScan } from './text-scan.js'

/**
 * Runs detectors over one string and settles their overlaps (see resolve.ts): where personal and
 * secret values sit, one finding per stretch of text.
 */
export function detectPii(text: string, detectors: readonly Detector[]): Finding[] {
  const all: Finding[] = []
  // Made at the first finding: a string without one needs no map.
  let priorities: Map<string, number> | undefined
  const scan = new TextScan(text)
  for (const d of detectors) {
    for (const f of d.find(text, scan)) {
      // A detector may report more than one type (URL_CREDENTIALS and URL_PARAM): each ranks as its detector.
      priorities ??= new Map()
      priorities.set(f.type, d.priority)
      all.push(f)
    }
  }
  return all.length ? resolve(all, (type) => priorities!.get(type) ?? 0) : all
}
