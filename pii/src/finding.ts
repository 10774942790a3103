import type { TextScan } from './text-scan.js'

/**
 * What a detector reports: the kind of personal or secret value and where it sits in the text.
 * Offsets are UTF-16 indices into the scanned string, `end` exclusive, like String.prototype.slice.
 */
export interface Finding {
  type: string
  start: number
  end: number
}

/**
 * One kind of detection. `find` is pure and sees only the text (and what one pass over it found,
 * shared by all detectors), so detectors can run in any order; overlaps between them are settled
 * afterwards (see resolve.ts). `priority` breaks ties between findings of equal length:
 * checksum-verified kinds outrank heuristic ones.
 */
export interface Detector {
  readonly type: string
  readonly priority: number
  find(text: string, scan: TextScan): Finding[]
}

/** Runs a global regex over text and turns each match (or one of its groups) into a finding. */
export function matchAll(text: string, regex: RegExp, type: string, accept: (match: RegExpExecArray) => boolean | [number, number] = () => true): Finding[] {
  const found: Finding[] = []
  regex.lastIndex = 0
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    const verdict = accept(m)
    if (verdict === true) found.push({ type, start: m.index, end: m.index + m[0].length })
    else if (verdict) found.push({ type, start: verdict[0], end: verdict[1] })
  }
  return found
}

/** The offsets of capture group `n` of a match compiled with the `d` flag. */
export function groupSpan(m: RegExpExecArray, n: number): [number, number] | false {
  const span = m.indices?.[n]
  return span ? [span[0], span[1]] : false
}

/** The `chars` characters before `index`, lower-cased: where cue words such as "phone" or "born" are looked for. */
export function before(text: string, index: number, chars: number): string {
  return text.slice(Math.max(0, index - chars), index).toLowerCase()
}
