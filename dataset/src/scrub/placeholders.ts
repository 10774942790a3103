import { createHmac } from 'node:crypto'

/**
 * Names the values replaced in one example. Without a key the same value gets the same numbered
 * placeholder within the example (`<EMAIL_1>`, `<EMAIL_2>`): coherent, yet unlinkable across
 * examples. With a key the placeholder carries a keyed hash of the value instead (`<EMAIL_3f9a21c0>`),
 * the same across the whole dataset and not reversible without the key. The value → placeholder map
 * lives in memory for one example only; nothing but the placeholder is ever written.
 */
export class Placeholders {
  /**
   * The values met so far, normalised, with their types and placeholders, side by side: an example
   * holds a handful, found faster by a scan than by hashing, and made only once a value is met (most
   * strings hold none). Past SMALL values (a long text scrubbed as one example) maps take over.
   */
  private small: { types: string[]; values: string[]; names: string[] } | undefined
  private large: { byValue: Map<string, string>; counts: Map<string, number> } | undefined

  constructor(private readonly key?: string) {}

  for(type: string, value: string): string {
    const normalised = normalise(type, value)
    const known = this.large ? this.large.byValue.get(`${type}\u0000${normalised}`) : this.lookup(type, normalised)
    if (known !== undefined) return known
    const placeholder = this.key
      ? `<${type}_${createHmac('sha256', this.key).update(`${type}\u0000${normalised}`).digest('hex').slice(0, 8)}>`
      : numbered(type, this.count(type) + 1)
    this.remember(type, normalised, placeholder)
    return placeholder
  }

  private lookup(type: string, normalised: string): string | undefined {
    const small = this.small
    if (!small) return undefined
    for (let i = 0; i < small.values.length; i++) if (small.values[i] === normalised && small.types[i] === type) return small.names[i]
    return undefined
  }

  /** How many values of `type` have a placeholder already. */
  private count(type: string): number {
    if (this.large) return this.large.counts.get(type) ?? 0
    let n = 0
    if (this.small) for (const t of this.small.types) if (t === type) n++
    return n
  }

  private remember(type: string, normalised: string, placeholder: string): void {
    if (!this.large) {
      const small = (this.small ??= { types: [], values: [], names: [] })
      small.types.push(type)
      small.values.push(normalised)
      small.names.push(placeholder)
      if (small.values.length <= SMALL) return
      this.large = { byValue: new Map(), counts: new Map() }
      this.small = undefined
      small.types.forEach((t, i) => this.addLarge(t, small.values[i]!, small.names[i]!))
    } else this.addLarge(type, normalised, placeholder)
  }

  private addLarge(type: string, normalised: string, placeholder: string): void {
    const large = this.large!
    large.byValue.set(`${type}\u0000${normalised}`, placeholder)
    large.counts.set(type, (large.counts.get(type) ?? 0) + 1)
  }
}

const SMALL = 32

/** `<TYPE_n>`, made once per type and number: the same few recur in every example. */
const made = new Map<string, string[]>()
function numbered(type: string, n: number): string {
  let list = made.get(type)
  if (!list) made.set(type, (list = []))
  return (list[n] ??= `<${type}_${n}>`)
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
