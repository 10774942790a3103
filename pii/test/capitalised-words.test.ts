import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededRandom } from '@sieve/testkit'
import { nextCapitalisedWord } from '../src/capitalised-words.js'

/** What the scanner stands in for (see capitalised-words.ts): the two must agree on every text. */
const TOKEN = /(?:\p{Lu}\.(?= )|\p{Lu}[\p{Ll}\p{M}]*(?:['’-]\p{L}[\p{Ll}\p{M}]*)*)(?![\p{L}\p{M}\p{N}_@])/gu

function byRegex(text: string): string[] {
  TOKEN.lastIndex = 0
  return [...text.matchAll(TOKEN)].map((m) => text.slice(m.index, m.index + m[0].length))
}

function byScanner(text: string): string[] {
  const words: string[] = []
  const word = { start: 0, end: 0 }
  for (let at = 0; nextCapitalisedWord(text, at, word); at = word.end) words.push(text.slice(word.start, word.end))
  return words
}

test('finds capitalised words, joined parts and initials before a space', () => {
  // Inside a word it finds what the regex finds ("Donald" in "McDonald", the last letter of a word in
  // capitals): the names detector drops those by the character before them.
  assert.deepEqual(byScanner("Dear Anna O'Neil-Smith, J. R. Tolkien's McDonald ÉLODIE Ľubica"), [
    'Dear',
    'Anna',
    "O'Neil-Smith",
    'J.',
    'R.',
    "Tolkien's",
    'Donald',
    'E',
    'Ľubica',
  ])
})

test('a word that runs on into a digit, "_" or "@" gives back its last joined part, or is no word', () => {
  assert.deepEqual(byScanner('Jean-Pierre2 Anna_ Bob@x Zoë'), ['Jean', 'Zoë'])
})

test('reads marks, letters beyond the BMP and lone surrogates as the regex does', () => {
  for (const text of ['Zoe\u0301 and E\u0301lodie', '𝐀nna 𝐀𝐁 Ab𝐚c', 'A\ud800b Ann\udc00a', 'ǅemal ªAna Σοφία', 'A-𝐚b x-Ay'])
    assert.deepEqual(byScanner(text), byRegex(text), text)
})

test('agrees with the regex on many generated texts made of the characters where the two could part', () => {
  const alphabet = [
    'A',
    'b',
    'É',
    'e\u0301',
    '-',
    "'",
    '’',
    ' ',
    '.',
    '1',
    '_',
    '@',
    '𝐀',
    '𝐚',
    'ǅ',
    'ª',
    'ß',
    'Σ',
    '\ud800',
    '\udc00',
    'x',
    'Z',
    '\u0301',
    '٣',
    'Ω',
    'ж',
  ]
  // The same texts on every run.
  const { below: next } = seededRandom(12345)
  let compared = 0
  for (let k = 0; k < 50_000; k++) {
    let text = ''
    for (let j = next(14); j >= 0; j--) text += alphabet[next(alphabet.length)]
    const expected = byRegex(text)
    compared += expected.length
    assert.deepEqual(byScanner(text), expected, JSON.stringify(text))
  }
  assert.ok(compared > 10_000, `only ${compared} words compared`)
})
