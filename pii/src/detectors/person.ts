import { nextCapitalisedWord, type WordSpan } from '../capitalised-words.js'
import { nameLexicon, type NameLexicon } from '../name-lexicon.js'
import type { Detector, Finding } from '../finding.js'

/**
 * Person names without a statistical model: capitalised runs of words are read token by token
 * against the name lexicon (see name-lexicon.ts), and context decides the rest: an honorific or a
 * cue such as "my name is" makes the following words a name even when no list knows them, and
 * surname endings common across Europe (-sson, -ová, -ski, -escu, …) count as evidence too.
 */
const HONORIFIC = /(?:\b(?:mr|mrs|ms|mx|miss|dr|prof|sir|dame|madam|herr|frau|mme|mlle|sr|sra|srta|dott|sig|ra)\.?|\bm\.)\s+$/i
const STRONG_CUE =
  /(?:(?:my|his|her|their|your|maiden|last|first|full|account|customer|user)(?:'s)? name(?: is|:)|\bname\s*[:=]|\bi'?m|\bi am|\bthis is|\bcalled|\bnamed|\bcall me|\bsigned|\bregards,|\bthanks,|\bcheers,|\bsincerely,|\bdear|\bhi|\bhello|\bhey|\bcontact|\bunder|\bcustomer|\bbeneficiary|\bguardian|\bpartner|\bkid|\bson|\bdaughter|\bwife|\bhusband|\bwith ms\.?|\bsays|\bsaid|\bdirected by|\bstarring|\bfollow up with|\bby|\bcommenter|\bproducer|\bsongwriter|\bsinger|\bauthor)\W{0,3}$/i
const NAME_FIELD = /(?:\bname\s*[:=]|\bname is|user:)\s*$/i
/**
 * The three as one lookbehind, tried at a candidate's start: V8 matches a lookbehind backwards
 * from there, so the cue costs a few steps instead of a scan of the text before the candidate.
 */
const CUE_BEFORE = new RegExp(`(?<=${[HONORIFIC, STRONG_CUE, NAME_FIELD].map((r) => r.source.replace(/\$$/, '')).join('|')})`, 'iy')
const SURNAME_ENDING =
  /(?:son|sen|ssen|dóttir|dottir|ová|ova|eva|ov|ev|ski|ska|sky|ský|cki|cka|wicz|ek|escu|ić|ič|vić|ian|yan|enko|uk|ak|poulos|idis|akis|opoulos|ez|es|ini|elli|etti|ucci|mann|berg|stein|nen|lä|inen|ar|ás|os|ssy|ffy)$/

type Kind = 'first' | 'last' | 'initial' | 'common' | 'unknown'

interface WordInfo {
  kind: Kind
  /** A known name that is also an ordinary word or a place ("Will", "Crystal", "Park"). */
  ambiguous: boolean
}

const words = new Map<string, WordInfo>()

/** What the lexicon says of a capitalised word, remembered: the same words recur across a dataset. */
function wordInfo(token: string, lex: NameLexicon): WordInfo {
  let info = words.get(token)
  if (info === undefined) {
    if (words.size > 100_000) words.clear()
    const kind = kindOf(token, lex)
    info = { kind, ambiguous: (kind === 'first' || kind === 'last') && lex.common.has(token.toLowerCase()) }
    words.set(token, info)
  }
  return info
}

function kindOf(token: string, lex: NameLexicon): Kind {
  if (/^\p{Lu}\.?$/u.test(token)) return 'initial'
  const lower = token.toLowerCase()
  if (lex.never.has(lower)) return 'common'
  if (lex.firstNames.has(lower)) return 'first'
  if (lex.lastNames.has(lower)) return 'last'
  // Plurals of ordinary words ("Tales", "Stripes") are missing from the lexicon as such.
  return lex.common.has(lower) || (lower.endsWith('s') && lex.common.has(lower.slice(0, -1))) ? 'common' : 'unknown'
}

const INSIDE_WORD = /[\p{L}\p{M}\p{N}_@.'’-]/u

/** Whether the character at `i` is INSIDE_WORD; the ASCII cases without a regex. */
function insideWord(text: string, i: number): boolean {
  const c = text.charCodeAt(i)
  if (c >= 128) return INSIDE_WORD.test(text[i]!)
  return (c >= 48 && c <= 57) || (c >= 64 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 46 || c === 39 || c === 45
}

/**
 * The capitalised words of the run being read (consecutive words separated by exactly one space),
 * side by side: reused from run to run, so reading a text makes no object per word.
 */
const run = { length: 0, start: [] as number[], end: [] as number[], word: [] as string[], info: [] as WordInfo[] }

function addToRun(start: number, end: number, word: string, info: WordInfo): void {
  const i = run.length++
  run.start[i] = start
  run.end[i] = end
  run.word[i] = word
  run.info[i] = info
}

/**
 * Reads the text's capitalised words run by run, and calls `each` with each run once it is complete.
 * Whether any word was found.
 */
function forEachRun(text: string, lex: NameLexicon, each: () => void): boolean {
  const word: WordSpan = { start: 0, end: 0 }
  let any = false
  run.length = 0
  for (let at = 0; nextCapitalisedWord(text, at, word); at = word.end) {
    const start = word.start
    // The left boundary, which the word itself does not check: "McDonald" holds no word "Donald".
    if (start > 0 && insideWord(text, start - 1)) continue
    let end = word.end
    const c = text.charCodeAt(end - 2)
    if (text.charCodeAt(end - 1) === 115 && (c === 39 || c === 0x2019)) end -= 2 // "Anna's" is "Anna"
    const value = text.slice(start, end)
    any = true
    const last = run.length - 1
    if (last >= 0 && (start - run.end[last]! !== 1 || text.charCodeAt(run.end[last]!) !== 32)) {
      each()
      run.length = 0
    }
    addToRun(start, end, value, wordInfo(value, lex))
  }
  if (run.length) each()
  return any
}

/**
 * Splits the run at ordinary words into the stretches that could be a name, as [from, to) indices
 * into it; initials only count inside a name, never at its edges. An ordinary word right after a
 * first name, in the same run of capitalised words, is its surname ("Ann Example", "Mary Field"),
 * unless it is a word that never names anyone.
 */
function candidates(lex: NameLexicon, each: (from: number, to: number) => void): void {
  let from = 0
  for (let i = 0; i <= run.length; i++) {
    if (i < run.length && (run.info[i]!.kind !== 'common' || isSurname(i, from, lex))) continue
    let s = from
    let e = i
    while (s < e && run.info[s]!.kind === 'initial') s++
    while (e > s && run.info[e - 1]!.kind === 'initial') e--
    if (e > s) each(s, e)
    from = i + 1
  }
}

/** Whether the ordinary word at `i` follows a first name that is no ordinary word itself, in the stretch from `from`. */
function isSurname(i: number, from: number, lex: NameLexicon): boolean {
  const before = run.info[i - 1]
  return i > from && before!.kind === 'first' && !before!.ambiguous && !lex.never.has(run.word[i]!.toLowerCase())
}

/** Whether the run's words [from, to) read as a name from the words alone (no cue needed). */
function isName(from: number, to: number): boolean {
  const length = to - from
  if (length > 4) return false
  let sure = 0
  let known = 0
  let initials = 0
  for (let i = from; i < to; i++) {
    const { kind, ambiguous } = run.info[i]!
    if (kind === 'first' || kind === 'last') {
      known++
      if (!ambiguous) sure++
    } else if (kind === 'initial') initials++
  }
  if (length === 1) return sure === 1 && (run.info[from]!.kind === 'first' || run.word[from]!.length > 3)
  // "Mijail C Adomo": a capitalised word, an initial, a capitalised word.
  return initials > 0 || sure >= 1 || known >= 2 || SURNAME_ENDING.test(run.word[to - 1]!.toLowerCase())
}

/** Lower-case names are only taken where a name is asked for ("name: eva kleist"). */
function lowerCaseAfterField(text: string, lex: NameLexicon): Finding[] {
  const found: Finding[] = []
  const re = /(?:\bname\s*[:=]|\bname is|\bi'?m|\bi am)\s*(\p{Ll}[\p{Ll}\p{M}'-]+(?: \p{Ll}[\p{Ll}\p{M}'-]+)?)(?![\p{L}])/dgiu
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const words = m[1]!.split(' ')
    const known = words.filter((w) => lex.firstNames.has(w) || lex.lastNames.has(w))
    if (known.length && words.every((w) => !lex.common.has(w) || lex.firstNames.has(w))) {
      const [s, e] = m.indices![1]!
      found.push({ type: 'PERSON', start: s, end: e })
    }
  }
  return found
}

/**
 * In an enumeration ("Kónya, Becker and Vasquez") one recognised name makes its neighbours names too,
 * provided they are single capitalised words that are not ordinary words.
 */
const LIST = /(?<![\p{L}\p{M}])\p{Lu}[\p{L}\p{M}'’-]+(?:, \p{Lu}[\p{L}\p{M}'’-]+)*,? (?:and|or|&) \p{Lu}[\p{L}\p{M}'’-]+(?![\p{L}\p{M}])/gu

/**
 * Whether an enumeration may end in the text: " and " (or, &) before a capital. Without the `u` flag, so
 * V8 scans faster; the class holds every \p{Lu} character (A-Z, and all above U+00BF), and LIST decides.
 */
const AND_CAPITAL = / (?:and|or|&) [A-Z\u00C0-\uFFFF]/

function enumerated(text: string, names: Finding[], lex: NameLexicon): Finding[] {
  const found: Finding[] = []
  LIST.lastIndex = 0
  for (let m = LIST.exec(text); m; m = LIST.exec(text)) {
    const items: Finding[] = []
    const word = /\p{Lu}[\p{L}\p{M}'’-]+/gu
    for (let w = word.exec(m[0]); w; w = word.exec(m[0])) {
      if (w[0] === 'and' || w[0] === 'or') continue
      items.push({ type: 'PERSON', start: m.index + w.index, end: m.index + w.index + w[0].length })
    }
    const anchored = items.some((i) => names.some((n) => n.start <= i.start && i.end <= n.end))
    if (!anchored) continue
    for (const i of items)
      if (!lex.common.has(text.slice(i.start, i.end).toLowerCase()) || lex.firstNames.has(text.slice(i.start, i.end).toLowerCase())) found.push(i)
  }
  return found
}

/**
 * Speaker labels in transcripts: a lone capitalised word opening a line and followed by a colon.
 * Sticky, tried at each line start (found by indexOf), rather than a lookbehind tried at every position.
 */
const SPEAKER = /[ \t>]*(\p{Lu}[\p{Ll}\p{M}'’-]+)(?=:)/uy

const FIRST_SPEAKER = /^[ \t>]*\p{Lu}[\p{Ll}\p{M}'’-]+:/u

function speakers(text: string, lex: NameLexicon): Finding[] {
  const found: Finding[] = []
  for (let line = 0; ; ) {
    SPEAKER.lastIndex = line
    const m = SPEAKER.exec(text)
    if (m) {
      const name = m[1]!
      const word = name.toLowerCase()
      // The name ends the match (only the lookahead follows it).
      const end = m.index + m[0].length
      if (!lex.never.has(word) && (!lex.common.has(word) || lex.firstNames.has(word))) found.push({ type: 'PERSON', start: end - name.length, end })
    }
    const next = text.indexOf('\n', line)
    if (next < 0) break
    line = next + 1
  }
  return found
}

/** "Thomas and Sons", "Drake & Co": the family firm's endings, which follow the name after a conjunction. */
const AND_SONS = /^,? (?:and|&) (?:Sons|Co\b|Company|Partners|Associates)/

/** Whether the run's words […, to) are an organisation's name: an organisation word follows them (see name-lexicon.ts). */
function namesAnOrganisation(text: string, to: number, lex: NameLexicon): boolean {
  if (to < run.length) return lex.organisationWords.has(run.word[to]!.toLowerCase())
  const end = run.end[to - 1]!
  // Most candidates end without a conjunction after them: no slice, no regex for those.
  return (text.startsWith(' and ', end) || text.startsWith(' & ', end) || text.startsWith(', and ', end)) && AND_SONS.test(text.slice(end, end + 24))
}

/** Whether an honorific or a cue such as "my name is" stands right before `start`. */
function cuedAt(text: string, start: number): boolean {
  if (start === 0) return false
  CUE_BEFORE.lastIndex = start
  return CUE_BEFORE.test(text)
}

export const person: Detector = {
  type: 'PERSON',
  priority: 2,
  find(text) {
    const lex = nameLexicon()
    const found: Finding[] = []
    const anyCapitalised = forEachRun(text, lex, () =>
      candidates(lex, (from, to) => {
        const start = run.start[from]!
        if (namesAnOrganisation(text, to, lex)) return
        if (isName(from, to) || cuedAt(text, start)) found.push({ type: 'PERSON', start, end: run.end[to - 1]! })
      }),
    )
    // Names typed in lower case are only looked for in text written all in lower case (no capitalised word, then no capital).
    if (!anyCapitalised && /name|i'?m|i am/.test(text) && !/\p{Lu}/u.test(text)) found.push(...lowerCaseAfterField(text, lex))
    if (found.length && AND_CAPITAL.test(text)) found.push(...enumerated(text, found, lex))
    // Speaker labels open a line: only multi-line text, or text that opens with one, can hold them.
    if (text.includes(':') && (text.includes('\n') || FIRST_SPEAKER.test(text))) found.push(...speakers(text, lex))
    return found
  },
}
