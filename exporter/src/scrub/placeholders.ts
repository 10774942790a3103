import { createHmac } from 'node:crypto'

/**
 * Names the values replaced in one example. Without a key the same value gets the same numbered
 * placeholder within the example (`<EMAIL_1>`, `<EMAIL_2>`): coherent, yet unlinkable across
 * examples. With a key the placeholder carries a keyed hash of the value instead (`<EMAIL_3f9a21c0>`),
 * the same across the whole dataset and not reversible without the key. The value → placeholder map
 * lives in memory for one example only; nothing but the placeholder is ever written.
 */
export class Placeholders {
  /** Placeholder by normalised value, one map per type: no key string is built for a lookup. */
  private readonly assigned = new Map<string, Map<string, string>>()

  constructor(private readonly key?: string) {}

  for(type: string, value: string): string {
    let ofType = this.assigned.get(type)
    if (!ofType) {
      ofType = new Map()
      this.assigned.set(type, ofType)
    }
    const normalised = normalise(type, value)
    let placeholder = ofType.get(normalised)
    if (!placeholder) {
      placeholder = this.key
        ? `<${type}_${createHmac('sha256', this.key).update(`${type}\u0000${normalised}`).digest('hex').slice(0, 8)}>`
        : `<${type}_${ofType.size + 1}>`
      ofType.set(normalised, placeholder)
    }
    return placeholder
  }
}

const NUMBERS = new Set(['PHONE', 'CREDIT_CARD', 'IBAN', 'SSN'])

/** Spellings of one value that should share a placeholder: case for emails and names, separators for numbers. */
function normalise(type: string, value: string): string {
  if (NUMBERS.has(type)) return value.replace(/[^0-9A-Za-z+]/g, '').toUpperCase()
  const lower = value.toLowerCase()
  // Most values have only single spaces between words, and nothing to collapse or trim.
  return UNEVEN_SPACE.test(lower) ? lower.replace(/\s+/g, ' ').trim() : lower
}

/** Whitespace that collapsing and trimming would change: a run, anything but a space, or at an edge. */
const UNEVEN_SPACE = /\s\s|[^\S ]|^\s|\s$/
