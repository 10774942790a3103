import { createHmac } from 'node:crypto'

/**
 * Names the values replaced in one example. Without a key the same value gets the same numbered
 * placeholder within the example (`<EMAIL_1>`, `<EMAIL_2>`): coherent, yet unlinkable across
 * examples. With a key the placeholder carries a keyed hash of the value instead (`<EMAIL_3f9a21c0>`),
 * the same across the whole dataset and not reversible without the key. The value → placeholder map
 * lives in memory for one example only; nothing but the placeholder is ever written.
 */
/**
 * The normalised values of one type met so far and their placeholders, side by side: an example
 * holds a handful of values of each type, found faster by a scan than by hashing. Past SMALL
 * values (a long text scrubbed as one example) a map takes over.
 */
interface TypeSlot {
  type: string
  values: string[]
  names: string[]
  large?: Map<string, string>
}

export class Placeholders {
  private readonly slots: TypeSlot[] = []

  constructor(private readonly key?: string) {}

  for(type: string, value: string): string {
    const slot = this.slotOf(type)
    const normalised = normalise(type, value)
    const { values, names, large } = slot
    const known = large ? large.get(normalised) : lookup(values, names, normalised)
    if (known !== undefined) return known
    const placeholder = this.key
      ? `<${type}_${createHmac('sha256', this.key).update(`${type}\u0000${normalised}`).digest('hex').slice(0, 8)}>`
      : numbered(type, (large ? large.size : values.length) + 1)
    if (large) large.set(normalised, placeholder)
    else {
      values.push(normalised)
      names.push(placeholder)
      if (values.length > SMALL) {
        slot.large = new Map(values.map((v, i) => [v, names[i]!]))
        values.length = 0
        names.length = 0
      }
    }
    return placeholder
  }

  private slotOf(type: string): TypeSlot {
    for (const slot of this.slots) if (slot.type === type) return slot
    const slot: TypeSlot = { type, values: [], names: [] }
    this.slots.push(slot)
    return slot
  }
}

const SMALL = 16

function lookup(values: string[], names: string[], value: string): string | undefined {
  for (let i = 0; i < values.length; i++) if (values[i] === value) return names[i]
  return undefined
}

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
