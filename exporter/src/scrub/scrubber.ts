import { builtInDetectors, detectPii, matchAll, type BuiltInType, type Detector, type Finding } from '@sieve/core/pii'
import { scrubOptionsSchema, type ScrubOptions } from './options.js'
import { Placeholders } from './placeholders.js'

export interface Scrubber {
  /** Where personal and secret values sit in one string, after overlaps are settled. */
  detect(text: string): Finding[]
  /**
   * A copy of `value` (string, array, object, any depth) with every string scrubbed. One call is
   * one example (the same value gets the same placeholder everywhere inside it) unless the
   * placeholders of an example in progress are passed.
   */
  scrub<T>(value: T, placeholders?: Placeholders): T
  /** Scrubs one string with the placeholders of an example in progress. */
  scrubText(text: string, placeholders: Placeholders): string
  /** Starts the placeholder scope of a new example. */
  newExample(): Placeholders
}

/** A digit, '@', '=', an ASCII capital or a character from U+00C0 on: a string with none holds nothing detected. */
const MAY_HOLD_PII = /[\d@A-Z\u00C0-\uFFFF=]/

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

  function detect(text: string): Finding[] {
    // Short strings without digits, '@' or capitals (enum values, keys, plain words) cannot hold anything detected.
    if (text.length < 3 || !MAY_HOLD_PII.test(text)) return []
    const rememberable = text.length >= 16 && text.length <= 65_536
    const remembered = rememberable ? recent.get(text) : undefined
    if (remembered) return remembered
    const found = detectUncached(text)
    if (rememberable) {
      // Oldest out first: the strings of the trace in progress stay while its later spans repeat them.
      if (recent.size >= 20_000) recent.delete(recent.keys().next().value!)
      recent.set(text, found)
    }
    return found
  }

  function detectUncached(text: string): Finding[] {
    const kept = detectPii(text, detectors)
    return allow.length ? kept.filter((f) => !allow.some((a) => a.test(text.slice(f.start, f.end)))) : kept
  }

  function scrubText(text: string, placeholders: Placeholders): string {
    const findings = detect(text)
    if (!findings.length) return text
    let out = ''
    let at = 0
    for (const f of findings) {
      out += text.slice(at, f.start) + placeholders.for(f.type, text.slice(f.start, f.end))
      at = f.end
    }
    return out + text.slice(at)
  }

  function deep(value: unknown, placeholders: Placeholders): unknown {
    if (typeof value === 'string') return scrubText(value, placeholders)
    if (Array.isArray(value)) {
      const out = new Array<unknown>(value.length)
      for (let i = 0; i < value.length; i++) out[i] = deep(value[i], placeholders)
      return out
    }
    if (value && typeof value === 'object') {
      const out: Record<string, unknown> = {}
      const keys = Object.keys(value)
      for (let i = 0; i < keys.length; i++) out[keys[i]!] = deep((value as Record<string, unknown>)[keys[i]!], placeholders)
      return out
    }
    return value
  }

  const newExample = () => new Placeholders(options.secret)
  return { detect, scrubText, newExample, scrub: <T>(value: T, placeholders = newExample()) => deep(value, placeholders) as T }
}
