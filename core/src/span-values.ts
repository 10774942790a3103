import type { AttributeValue, Attributes } from './span.js'

/*
 * Building span values that every store takes back as they were given (decoders, row writers).
 */

/**
 * Sets an attribute as an own property whatever its key. A plain assignment of `__proto__`
 * would replace the object's prototype instead (the attribute lost, a kvlist value's members
 * turning up as inherited "attributes"), so that one key is defined rather than assigned.
 */
export function setAttribute(into: Attributes, key: string, value: AttributeValue): void {
  if (key === '__proto__') Object.defineProperty(into, key, { value, enumerable: true, writable: true, configurable: true })
  else into[key] = value
}

// ES2024's String methods (Node 20 has them; the project's lib is ES2023).
type WellFormedString = string & { isWellFormed(): boolean; toWellFormed(): string }

/**
 * The text with each lone surrogate (half of an emoji cut in two, `"\ud800"` in JSON) replaced
 * by U+FFFD. Such text has no UTF-8 form: storage refuses it, or mangles it.
 */
export function wellFormed(text: string): string {
  const s = text as WellFormedString
  return s.isWellFormed() ? text : s.toWellFormed()
}
