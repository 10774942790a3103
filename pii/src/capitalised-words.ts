/**
 * Finds the capitalised words the names detector reads: what the global regex
 *
 *   /(?:\p{Lu}\.(?= )|\p{Lu}[\p{Ll}\p{M}]*(?:['’-]\p{L}[\p{Ll}\p{M}]*)*)(?![\p{L}\p{M}\p{N}_@])/gu
 *
 * matches ("Anna", "O'Neil", "Jean-Pierre", "J." before a space), found without it: a plainer regex
 * finds where a capital may stand, and a loop reads the word from there by a table of character
 * classes. The regex costs a match object per word, tens of thousands in a batch of agent text;
 * this makes nothing per word. A test holds the two to the same matches.
 */

const UPPER = 1
const LOWER_OR_MARK = 2
const LETTER = 4
/** Letters, marks, digits, '_' and '@': a word does not end before one of these. */
const WORD_GOES_ON = 8
const CLASSIFIED = 128

const classes: [number, RegExp][] = [
  [UPPER, /^\p{Lu}$/u],
  [LOWER_OR_MARK, /^[\p{Ll}\p{M}]$/u],
  [LETTER, /^\p{L}$/u],
  [WORD_GOES_ON, /^[\p{L}\p{M}\p{N}_@]$/u],
]

function classify(char: string): number {
  let bits = CLASSIFIED
  for (const [bit, regex] of classes) if (regex.test(char)) bits |= bit
  return bits
}

/** Class bits by UTF-16 code unit, filled as characters are first met; ASCII up front. */
const bmp = new Uint8Array(65_536)
for (let c = 0; c < 128; c++) bmp[c] = classify(String.fromCharCode(c))
/** Characters beyond the BMP (surrogate pairs), rare enough for a map; emptied past 10,000 of them. */
const astral = new Map<number, number>()

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff
}
function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff
}

/** UTF-16 units of the code point at `i`: the regex reads a surrogate pair as one character. */
function widthAt(text: string, i: number): number {
  return isHighSurrogate(text.charCodeAt(i)) && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1
}

/** The class bits of the code point at `i`; 0 past the end. */
function classAt(text: string, i: number): number {
  if (i >= text.length) return 0
  const c = text.charCodeAt(i)
  if (widthAt(text, i) === 2) {
    const codePoint = text.codePointAt(i)!
    let bits = astral.get(codePoint)
    if (bits === undefined) {
      if (astral.size >= 10_000) astral.clear()
      astral.set(codePoint, (bits = classify(String.fromCodePoint(codePoint))))
    }
    return bits
  }
  return bmp[c] || (bmp[c] = classify(String.fromCharCode(c)))
}

/** Past the lower-case letters and marks from `i` on. */
function skipLowerOrMarks(text: string, i: number): number {
  for (;;) {
    const c = text.charCodeAt(i)
    if (c >= 97 && c <= 122)
      i++ // a-z, most of them, without a lookup
    else if (classAt(text, i) & LOWER_OR_MARK) i += widthAt(text, i)
    else return i
  }
}

function isJoiner(c: number): boolean {
  return c === 39 || c === 0x2019 || c === 45 // ' ’ -
}

/**
 * Where the word that the regex would match at `p` (an upper-case letter `width` units wide) ends,
 * or -1 if it matches nothing there. Follows the regex's backtracking: a word that runs on into a
 * letter, mark, digit, '_' or '@' gives back its last joined part ("Jean" from "Jean-Pierre2"), or
 * fails when it has none.
 */
function wordEndAt(text: string, p: number, width: number): number {
  if (text.charCodeAt(p + width) === 46 && text.charCodeAt(p + width + 1) === 32) return p + width + 1 // "J. "
  let end = skipLowerOrMarks(text, p + width)
  let beforeLastPart = -1
  while (isJoiner(text.charCodeAt(end)) && classAt(text, end + 1) & LETTER) {
    beforeLastPart = end
    end = skipLowerOrMarks(text, end + 1 + widthAt(text, end + 1))
  }
  return classAt(text, end) & WORD_GOES_ON ? beforeLastPart : end
}

/**
 * Where an upper-case letter may stand: every ASCII capital and every character from U+0100 on
 * (Latin-1's lower-case letters excluded). Without the `u` flag, which V8 scans faster; classAt decides.
 */
const MAY_BE_UPPER = /[A-Z\u00C0-\u00DE\u0100-\uFFFF]/g

/** Where a word sits in the text, `end` exclusive. */
export interface WordSpan {
  start: number
  end: number
}

/**
 * Finds the next capitalised word at or after `from` and writes where it sits into `word` (one span
 * object for a whole text, rather than one per word). False when there is none.
 */
export function nextCapitalisedWord(text: string, from: number, word: WordSpan): boolean {
  for (let p = from; ; ) {
    MAY_BE_UPPER.lastIndex = p
    if (!MAY_BE_UPPER.test(text)) return false
    p = MAY_BE_UPPER.lastIndex - 1
    const width = widthAt(text, p)
    if (classAt(text, p) & UPPER) {
      const end = wordEndAt(text, p, width)
      if (end >= 0) {
        word.start = p
        word.end = end
        return true
      }
    }
    p += width
  }
}
