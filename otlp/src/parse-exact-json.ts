import { OtlpDecodeError } from './otlp-error.js'

/** Integers with this many digits may exceed 2^53 and lose precision as doubles. */
const UNSAFE_DIGITS = 16

/**
 * Puts quotes around integer literals too long for a double, outside strings, so JSON.parse keeps
 * their digits. Strings are skipped with indexOf; only the little text between them is scanned.
 */
export function quoteLongIntegers(text: string): string {
  let out = ''
  let copied = 0
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      i = stringEnd(text, i + 1)
      if (i < 0) return text // unterminated: JSON.parse reports it
    } else if ((c >= 0x30 && c <= 0x39) || c === 0x2d) {
      const start = i
      let integer = true
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d >= 0x30 && d <= 0x39) continue
        if (d === 0x2e || d === 0x65 || d === 0x45 || d === 0x2b || d === 0x2d) integer = false
        else break
      }
      const digits = i - start - (c === 0x2d ? 1 : 0)
      if (integer && digits >= UNSAFE_DIGITS) {
        out += `${text.slice(copied, start)}"${text.slice(start, i)}"`
        copied = i
      }
    } else {
      i++
    }
  }
  return copied === 0 ? text : out + text.slice(copied)
}

/** Index just past the closing quote of a string whose content starts at `from`, or -1. */
function stringEnd(text: string, from: number): number {
  for (;;) {
    const quote = text.indexOf('"', from)
    if (quote < 0) return -1
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    from = quote + 1
  }
}

/** JSON.parse that keeps every digit of long integers by reading them as strings. */
export function parseExactJson(text: string): unknown {
  try {
    return JSON.parse(quoteLongIntegers(text))
  } catch (err) {
    throw new OtlpDecodeError('JSON_INVALID', `invalid JSON: ${(err as Error).message}`)
  }
}
