/**
 * Structured PII found by pattern: what the PII echo check compares between what a user said and
 * what the agent answered. Each finding has a normalized form so "+1 (415) 555-0100" said by the
 * user matches "415.555.0100" in the answer.
 */
export const PII_KINDS = ['email', 'phone', 'credit_card', 'ssn', 'iban', 'ip_address'] as const
export type PiiKind = (typeof PII_KINDS)[number]

export interface PiiFinding {
  kind: PiiKind
  /** As written in the text. */
  text: string
  /** Comparable form: lower-case email, digits only for numbers, upper-case compact IBAN. */
  normalized: string
}

const digits = (s: string): string => s.replace(/\D/g, '')

function luhn(number: string): boolean {
  let sum = 0
  for (let i = 0; i < number.length; i++) {
    let d = number.charCodeAt(number.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

interface Detector {
  kind: PiiKind
  pattern: RegExp
  normalize(match: string): string | undefined
}

const DETECTORS: Detector[] = [
  { kind: 'email', pattern: /\b[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}\b/g, normalize: (m) => m.toLowerCase() },
  {
    kind: 'credit_card',
    pattern: /\b\d(?:[ -]?\d){12,18}\b/g,
    normalize: (m) => {
      const d = digits(m)
      return d.length >= 13 && d.length <= 19 && luhn(d) ? d : undefined
    },
  },
  { kind: 'ssn', pattern: /\b\d{3}-\d{2}-\d{4}\b/g, normalize: digits },
  {
    kind: 'iban',
    pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b/g,
    normalize: (m) => m.replace(/\s/g, '').toUpperCase(),
  },
  {
    // A separator or a leading + is required, so bare order numbers do not read as phones.
    kind: 'phone',
    pattern: /(?:\+\d{1,3}[\s.-]?)?(?:\(\d{2,4}\)|\d{2,4})[\s.-]\d{3,4}[\s.-]?\d{3,4}\b/g,
    normalize: (m) => {
      const d = digits(m)
      if (d.length < 9 || d.length > 15) return undefined
      // Compare on the national part: the user may give the country code and the agent not.
      return d.slice(-9)
    },
  },
  {
    kind: 'ip_address',
    pattern: /\b(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)\b/g,
    normalize: (m) => m,
  },
]

export function findPii(text: string, kinds: readonly PiiKind[] = PII_KINDS): PiiFinding[] {
  const found: PiiFinding[] = []
  const taken: [number, number][] = []
  for (const detector of DETECTORS) {
    if (!kinds.includes(detector.kind)) continue
    for (const match of text.matchAll(detector.pattern)) {
      const start = match.index
      const end = start + match[0].length
      // A card number also looks like a phone; the first (more specific) detector wins the span.
      if (taken.some(([s, e]) => start < e && end > s)) continue
      const normalized = detector.normalize(match[0])
      if (normalized === undefined) continue
      taken.push([start, end])
      found.push({ kind: detector.kind, text: match[0], normalized })
    }
  }
  return found
}

/** Enough of a finding to recognise it in the trace without copying the PII into scores. */
export function maskPii(text: string): string {
  if (text.length <= 4) return '*'.repeat(text.length)
  const keep = Math.min(4, Math.floor(text.length / 4))
  return `${text.slice(0, 1)}${'*'.repeat(text.length - 1 - keep)}${text.slice(-keep)}`
}
