import type { Finding } from '@sieve/pii'
import { ScrubDetector } from './detector.js'
import { scrubOptionsSchema, type ScrubOptions } from './options.js'
import { Placeholders } from './placeholders.js'

export interface Scrubber {
  /** Where personal and secret values sit in one string, after overlaps are settled. */
  detect(text: string): Finding[]
  /**
   * `value` (string, array, object, any depth) with every string scrubbed. The input is left as it
   * is; arrays and objects with nothing to replace inside are returned as they are, not copied. One
   * call is one example (the same value gets the same placeholder everywhere inside it) unless the
   * placeholders of an example in progress are passed.
   */
  scrub<T>(value: T, placeholders?: Placeholders): T
  /**
   * Scrubs many values at once, each its own example unless one placeholder scope is passed for all.
   * Faster than one call per value for batches of hundreds of strings: see detectPiiEach.
   */
  scrubEach<T>(values: readonly T[], placeholders?: Placeholders): T[]
  /** Scrubs one string with the placeholders of an example in progress. */
  scrubText(text: string, placeholders: Placeholders): string
  /** Starts the placeholder scope of a new example. */
  newExample(): Placeholders
}

/** The findings of a string that cannot hold a value (see ScrubDetector.detectAll, which visits every string). */
const NONE: Finding[] = []

export function createScrubber(input: ScrubOptions = {}): Scrubber {
  const options = scrubOptionsSchema.parse(input)
  const detector = new ScrubDetector(options)
  const newExample = () => new Placeholders(options.secret)
  function scrubEach<T>(values: readonly T[], placeholders?: Placeholders): T[] {
    const known = detector.detectAll(values)
    return values.map((value) => scrubDeep(value, placeholders ?? newExample(), known) as T)
  }
  return {
    detect: (text) => detector.detect(text),
    scrubText: (text, placeholders) => replaceFindings(text, placeholders, detector.detect(text)),
    newExample,
    scrubEach,
    scrub: <T>(value: T, placeholders = newExample()) => scrubEach([value], placeholders)[0]!,
  }
}

/** `text` with each of its findings (in order, not overlapping) replaced by its placeholder. */
function replaceFindings(text: string, placeholders: Placeholders, findings: readonly Finding[]): string {
  if (!findings.length) return text
  let out = ''
  let at = 0
  for (const f of findings) {
    out += text.slice(at, f.start) + placeholders.for(f.type, text.slice(f.start, f.end))
    at = f.end
  }
  return out + text.slice(at)
}

/**
 * `value` with its strings scrubbed. What holds nothing to replace is returned as it is, not
 * copied; an array or object with something replaced inside is a shallow copy of the original
 * with the changed members set, so the input is never modified.
 */
function scrubDeep(value: unknown, placeholders: Placeholders, known: Map<string, Finding[]>): unknown {
  if (typeof value === 'string') return replaceFindings(value, placeholders, known.get(value) ?? NONE)
  if (Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]
      const scrubbed = scrubDeep(item, placeholders, known)
      if (scrubbed !== item) (out ??= value.slice())[i] = scrubbed
    }
    return out ?? value
  }
  if (value && typeof value === 'object') {
    let out: Record<string, unknown> | undefined
    const keys = Object.keys(value)
    for (let i = 0; i < keys.length; i++) {
      const member = (value as Record<string, unknown>)[keys[i]!]
      const scrubbed = scrubDeep(member, placeholders, known)
      if (scrubbed !== member) (out ??= { ...value })[keys[i]!] = scrubbed
    }
    return out ?? value
  }
  return value
}
