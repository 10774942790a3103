/**
 * Runs of consecutive words shared by two texts, in time linear in their lengths.
 *
 * Words are what `/[\p{L}\p{N}']+/gu` matches in the lower-cased text. Each word is hashed as it is
 * scanned (no word strings are made), a run of `n` words is a rolling hash of its words' hashes,
 * and the runs of the indexed text sit in an open-addressing table of typed arrays: indexing a
 * 32 KB prompt makes a few arrays instead of thousands of joined strings. Every hash hit is
 * confirmed word by word, so a collision never reports a run that is not there.
 */

/** The words of a text: offsets into its lower-cased form and a hash of each. */
export interface Words {
  readonly text: string
  readonly starts: Int32Array
  readonly ends: Int32Array
  readonly hashes: Uint32Array
  readonly count: number
}

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193
const RUN_BASE = 0x9e3779b1
const PART_OF_WORD = /[\p{L}\p{N}']/u

function isWordChar(code: number, text: string, at: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || code === 39
  return PART_OF_WORD.test(String.fromCodePoint(text.codePointAt(at)!))
}

/** Scans `text` once; a word's characters are hashed as they pass. */
export function wordsOf(text: string): Words {
  const lower = text.toLowerCase()
  let capacity = 64
  let starts = new Int32Array(capacity)
  let ends = new Int32Array(capacity)
  let hashes = new Uint32Array(capacity)
  let count = 0
  let i = 0
  while (i < lower.length) {
    let code = lower.charCodeAt(i)
    if (!isWordChar(code, lower, i)) {
      i += code >= 0xd800 && code <= 0xdbff ? 2 : 1
      continue
    }
    const start = i
    let hash = FNV_OFFSET
    while (i < lower.length && isWordChar((code = lower.charCodeAt(i)), lower, i)) {
      const width = code >= 0xd800 && code <= 0xdbff ? 2 : 1
      for (let k = 0; k < width; k++) hash = Math.imul(hash ^ lower.charCodeAt(i + k), FNV_PRIME)
      i += width
    }
    if (count === capacity) {
      capacity *= 2
      starts = grow(starts, new Int32Array(capacity))
      ends = grow(ends, new Int32Array(capacity))
      hashes = grow(hashes, new Uint32Array(capacity))
    }
    starts[count] = start
    ends[count] = i
    hashes[count++] = hash >>> 0
  }
  return { text: lower, starts, ends, hashes, count }
}

function grow<T extends Int32Array | Uint32Array>(from: T, to: T): T {
  to.set(from)
  return to
}

/** Hashes of every run of `n` words, by the run's first word: `count - n + 1` of them. */
function runHashes(words: Words, n: number): Uint32Array {
  const runs = new Uint32Array(Math.max(0, words.count - n + 1))
  if (runs.length === 0) return runs
  let top = 1 // RUN_BASE ** (n - 1), to take the leaving word out
  for (let k = 1; k < n; k++) top = Math.imul(top, RUN_BASE)
  let hash = 0
  for (let k = 0; k < n; k++) hash = (Math.imul(hash, RUN_BASE) + words.hashes[k]!) | 0
  runs[0] = hash >>> 0
  for (let i = 1; i < runs.length; i++) {
    hash = (Math.imul((hash - Math.imul(words.hashes[i - 1]!, top)) | 0, RUN_BASE) + words.hashes[i + n - 1]!) | 0
    runs[i] = hash >>> 0
  }
  return runs
}

/** Every run of `n` words of one text, to look runs of other texts up in. */
export interface WindowIndex {
  readonly words: Words
  readonly n: number
  /** Slot -> run hash; a slot is taken when its position is not -1. */
  readonly keys: Uint32Array
  /** Slot -> the run's first word in `words`, or -1 for an empty slot. */
  readonly positions: Int32Array
  readonly mask: number
}

export function windowIndex(text: string, n: number): WindowIndex {
  const words = wordsOf(text)
  const runs = runHashes(words, n)
  let size = 16
  while (size < runs.length * 2) size *= 2
  const keys = new Uint32Array(size)
  const positions = new Int32Array(size).fill(-1)
  const mask = size - 1
  for (let i = 0; i < runs.length; i++) {
    let slot = runs[i]! & mask
    while (positions[slot] !== -1) slot = (slot + 1) & mask
    keys[slot] = runs[i]!
    positions[slot] = i
  }
  return { words, n, keys, positions, mask }
}

function sameRun(a: Words, from: number, b: Words, to: number, n: number): boolean {
  for (let k = 0; k < n; k++) {
    const x = from + k
    const y = to + k
    if (a.hashes[x] !== b.hashes[y]) return false
    const length = a.ends[x]! - a.starts[x]!
    if (length !== b.ends[y]! - b.starts[y]!) return false
    if (a.text.slice(a.starts[x]!, a.ends[x]!) !== b.text.slice(b.starts[y]!, b.ends[y]!)) return false
  }
  return true
}

/** The first run of `index.n` words of `text` that the indexed text also has, words joined by a space. */
export function firstSharedRun(index: WindowIndex, text: string): string | undefined {
  if (index.words.count < index.n) return undefined
  const words = wordsOf(text)
  const runs = runHashes(words, index.n)
  for (let i = 0; i < runs.length; i++) {
    const hash = runs[i]!
    for (let slot = hash & index.mask; index.positions[slot] !== -1; slot = (slot + 1) & index.mask) {
      if (index.keys[slot] === hash && sameRun(words, i, index.words, index.positions[slot]!, index.n)) {
        return Array.from({ length: index.n }, (_, k) => words.text.slice(words.starts[i + k]!, words.ends[i + k]!)).join(' ')
      }
    }
  }
  return undefined
}
