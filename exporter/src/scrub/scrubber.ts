import { builtInDetectors, detectPiiEach, matchAll, type BuiltInType, type Detector, type Finding } from '@sieve/core/pii'
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

/** A digit, '@', '=', an ASCII capital or a character from U+00C0 on: a string with none holds nothing detected. */
const MAY_HOLD_PII = /[\d@A-Z\u00C0-\uFFFF=]/

/** Marks a string of a batch whose findings are still to come. */
const NOT_YET: Finding[] = []
/** The findings of a string that cannot hold a value (see detectAll, which visits every string). */
const NONE: Finding[] = []

/** Calls `each` with every string inside `value`, at any depth. */
function forEachString(value: unknown, each: (text: string) => void): void {
  if (typeof value === 'string') each(value)
  else if (Array.isArray(value)) for (const item of value) forEachString(item, each)
  else if (value && typeof value === 'object') for (const key of Object.keys(value)) forEachString((value as Record<string, unknown>)[key], each)
}

function customDetector(type: string, pattern: string): Detector {
  const regex = new RegExp(pattern, 'gu')
  return { type, priority: 11, find: (text) => matchAll(text, regex, type) }
}

export function createScrubber(input: ScrubOptions = {}): Scrubber {
  const options = scrubOptionsSchema.parse(input)
  const disabled = new Set<string>(options.disable)
  const detectors: Detector[] = [
    ...Object.entries(builtInDetectors)
      .filter(([type]) => !disabled.has(type as BuiltInType))
      .map(([, d]) => d as Detector),
    ...options.sensitive.map((s) => customDetector(s.type, s.pattern)),
  ]
  const allow = options.allow.map((source) => new RegExp(`^(?:${source})$`, 'u'))

  /**
   * Findings of recent strings: system prompts, tool descriptions and repeated tool results recur in
   * almost every trace of an agent. Held in memory only, never written.
   */
  const recent = new Map<string, Finding[]>()

  function mayHoldPii(text: string): boolean {
    // Short strings without digits, '@' or capitals (enum values, keys, plain words) cannot hold anything detected.
    return text.length >= 3 && MAY_HOLD_PII.test(text)
  }

  /** Strings of 16 characters or more are remembered: shorter ones cost less to detect than to look up. */
  function rememberable(text: string): boolean {
    return text.length >= 16 && text.length <= 65_536
  }

  function remember(text: string, found: Finding[]): void {
    if (!rememberable(text)) return
    // Oldest out first: the strings of the trace in progress stay while its later spans repeat them.
    if (recent.size >= 20_000) recent.delete(recent.keys().next().value!)
    recent.set(text, found)
  }

  /** Findings for texts not yet remembered, detected together (see detectPiiEach), allow-listed values dropped. */
  function detectEach(texts: readonly string[]): Finding[][] {
    const each = detectPiiEach(texts, detectors)
    if (allow.length) for (let i = 0; i < texts.length; i++) each[i] = each[i]!.filter((f) => !allow.some((a) => a.test(texts[i]!.slice(f.start, f.end))))
    texts.forEach((text, i) => remember(text, each[i]!))
    return each
  }

  function detect(text: string): Finding[] {
    if (!mayHoldPii(text)) return []
    return (rememberable(text) && recent.get(text)) || detectEach([text])[0]!
  }

  /** The findings of every string in `values` that may hold a value, detected in one batch, by string. */
  function detectAll(values: readonly unknown[]): Map<string, Finding[]> {
    const known = new Map<string, Finding[]>()
    const pending: string[] = []
    for (const value of values)
      forEachString(value, (text) => {
        if (!mayHoldPii(text) || known.has(text)) return
        const remembered = rememberable(text) ? recent.get(text) : undefined
        if (remembered) known.set(text, remembered)
        else {
          known.set(text, NOT_YET)
          pending.push(text)
        }
      })
    detectEach(pending).forEach((found, i) => known.set(pending[i]!, found))
    return known
  }

  function scrubText(text: string, placeholders: Placeholders, findings = detect(text)): string {
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
  function deep(value: unknown, placeholders: Placeholders, known: Map<string, Finding[]>): unknown {
    if (typeof value === 'string') return scrubText(value, placeholders, known.get(value) ?? NONE)
    if (Array.isArray(value)) {
      let out: unknown[] | undefined
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i]
        const scrubbed = deep(item, placeholders, known)
        if (scrubbed !== item) (out ??= value.slice())[i] = scrubbed
      }
      return out ?? value
    }
    if (value && typeof value === 'object') {
      let out: Record<string, unknown> | undefined
      const keys = Object.keys(value)
      for (let i = 0; i < keys.length; i++) {
        const member = (value as Record<string, unknown>)[keys[i]!]
        const scrubbed = deep(member, placeholders, known)
        if (scrubbed !== member) (out ??= { ...value })[keys[i]!] = scrubbed
      }
      return out ?? value
    }
    return value
  }

  function scrubEach<T>(values: readonly T[], placeholders?: Placeholders): T[] {
    const known = detectAll(values)
    return values.map((value) => deep(value, placeholders ?? newExample(), known) as T)
  }

  const newExample = () => new Placeholders(options.secret)
  return {
    detect,
    scrubText: (text, placeholders) => scrubText(text, placeholders),
    newExample,
    scrubEach,
    scrub: <T>(value: T, placeholders = newExample()) => scrubEach([value], placeholders)[0]!,
  }
}
