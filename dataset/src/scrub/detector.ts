import { builtInDetectors, detectPiiEach, matchAll, type BuiltInType, type Detector, type Finding } from '@sieve/pii'
import type { ResolvedScrubOptions } from './options.js'

/** A digit, '@', '=', an ASCII capital or a character from U+00C0 on: a string with none holds nothing detected. */
const MAY_HOLD_PII = /[\d@A-Z\u00C0-\uFFFF=]/

/** Marks a string of a batch whose findings are still to come. */
const NOT_YET: Finding[] = []

function mayHoldPii(text: string): boolean {
  // Short strings without digits, '@' or capitals (enum values, keys, plain words) cannot hold anything detected.
  return text.length >= 3 && MAY_HOLD_PII.test(text)
}

/** Strings of 16 characters or more are remembered: shorter ones cost less to detect than to look up. */
function rememberable(text: string): boolean {
  return text.length >= 16 && text.length <= 65_536
}

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

/** The built-in detectors not disabled, then the configured `sensitive` patterns. */
function detectorsOf(options: ResolvedScrubOptions): Detector[] {
  const disabled = new Set<string>(options.disable)
  return [
    ...Object.entries(builtInDetectors)
      .filter(([type]) => !disabled.has(type as BuiltInType))
      .map(([, d]) => d as Detector),
    ...options.sensitive.map((s) => customDetector(s.type, s.pattern)),
  ]
}

/** Where the scrubber's detectors find values in strings, allow-listed values left out. */
export class ScrubDetector {
  private readonly detectors: Detector[]
  private readonly allow: RegExp[]
  /**
   * Findings of recent strings: system prompts, tool descriptions and repeated tool results recur in
   * almost every trace of an agent. Held in memory only, never written.
   */
  private readonly recent = new Map<string, Finding[]>()

  constructor(options: ResolvedScrubOptions) {
    this.detectors = detectorsOf(options)
    this.allow = options.allow.map((source) => new RegExp(`^(?:${source})$`, 'u'))
  }

  detect(text: string): Finding[] {
    if (!mayHoldPii(text)) return []
    return (rememberable(text) && this.recent.get(text)) || this.detectEach([text])[0]!
  }

  /**
   * The findings of every string in `values` that may hold a value, detected in one batch, by
   * string; a string that cannot hold one is left out.
   */
  detectAll(values: readonly unknown[]): Map<string, Finding[]> {
    const known = new Map<string, Finding[]>()
    const pending: string[] = []
    for (const value of values)
      forEachString(value, (text) => {
        if (!mayHoldPii(text) || known.has(text)) return
        const remembered = rememberable(text) ? this.recent.get(text) : undefined
        if (remembered) known.set(text, remembered)
        else {
          known.set(text, NOT_YET)
          pending.push(text)
        }
      })
    this.detectEach(pending).forEach((found, i) => known.set(pending[i]!, found))
    return known
  }

  /** Findings for texts not yet remembered, detected together (see detectPiiEach), allow-listed values dropped. */
  private detectEach(texts: readonly string[]): Finding[][] {
    const each = detectPiiEach(texts, this.detectors)
    const allow = this.allow
    if (allow.length) for (let i = 0; i < texts.length; i++) each[i] = each[i]!.filter((f) => !allow.some((a) => a.test(texts[i]!.slice(f.start, f.end))))
    texts.forEach((text, i) => this.remember(text, each[i]!))
    return each
  }

  private remember(text: string, found: Finding[]): void {
    if (!rememberable(text)) return
    // Oldest out first: the strings of the trace in progress stay while its later spans repeat them.
    if (this.recent.size >= 20_000) this.recent.delete(this.recent.keys().next().value!)
    this.recent.set(text, found)
  }
}
