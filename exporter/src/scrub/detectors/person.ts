import { nameLexicon, type NameLexicon } from '../name-lexicon.js'
import type { Detector, Finding } from '../finding.js'

/**
 * Person names without a statistical model: capitalised runs of words are read token by token
 * against the name lexicon (see name-lexicon.ts), and context decides the rest: an honorific or a
 * cue such as "my name is" makes the following words a name even when no list knows them, and
 * surname endings common across Europe (-sson, -ová, -ski, -escu, …) count as evidence too.
 */
// The left boundary is checked by hand (see runs): a lookbehind here would be tried at every position.
const TOKEN = /(?:\p{Lu}\.(?= )|\p{Lu}[\p{Ll}\p{M}]*(?:['’-]\p{L}[\p{Ll}\p{M}]*)*)(?![\p{L}\p{M}\p{N}_@])/gu
const HONORIFIC = /(?:\b(?:mr|mrs|ms|mx|miss|dr|prof|sir|dame|madam|herr|frau|mme|mlle|sr|sra|srta|dott|sig|ra)\.?|\bm\.)\s+$/i
const STRONG_CUE =
  /(?:(?:my|his|her|their|your|maiden|last|first|full|account|customer|user)(?:'s)? name(?: is|:)|\bname\s*[:=]|\bi'?m|\bi am|\bthis is|\bcalled|\bnamed|\bcall me|\bsigned|\bregards,|\bthanks,|\bcheers,|\bsincerely,|\bdear|\bhi|\bhello|\bhey|\bcontact|\bunder|\bcustomer|\bbeneficiary|\bguardian|\bpartner|\bkid|\bson|\bdaughter|\bwife|\bhusband|\bwith ms\.?|\bsays|\bsaid|\bdirected by|\bstarring|\bfollow up with|\bby|\bcommenter|\bproducer|\bsongwriter|\bsinger|\bauthor)\W{0,3}$/i
const NAME_FIELD = /(?:\bname\s*[:=]|\bname is|user:)\s*$/i
const SURNAME_ENDING =
  /(?:son|sen|ssen|dóttir|dottir|ová|ova|eva|ov|ev|ski|ska|sky|ský|cki|cka|wicz|ek|escu|ić|ič|vić|ian|yan|enko|uk|ak|poulos|idis|akis|opoulos|ez|es|ini|elli|etti|ucci|mann|berg|stein|nen|lä|inen|ar|ás|os|ssy|ffy)$/

type Kind = 'first' | 'last' | 'initial' | 'common' | 'unknown'

const kinds = new Map<string, Kind>()

/** kindOf, remembered: the same capitalised words recur across a dataset. */
function cachedKind(token: string, lex: NameLexicon): Kind {
  let kind = kinds.get(token)
  if (kind === undefined) {
    if (kinds.size > 100_000) kinds.clear()
    kind = kindOf(token, lex)
    kinds.set(token, kind)
  }
  return kind
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

interface Token {
  text: string
  start: number
  end: number
  kind: Kind
  /** A known name that is also an ordinary word or a place ("Will", "Crystal", "Park"). */
  ambiguous: boolean
  capitalised: boolean
}

const INSIDE_WORD = /[\p{L}\p{M}\p{N}_@.'’-]/u

/** Consecutive tokens separated by exactly one space form a run. */
function runs(text: string, lex: NameLexicon): Token[][] {
  const out: Token[][] = []
  let run: Token[] = []
  TOKEN.lastIndex = 0
  for (let m = TOKEN.exec(text); m; m = TOKEN.exec(text)) {
    if (m.index > 0 && INSIDE_WORD.test(text[m.index - 1]!)) continue
    let value = m[0]
    if (value.endsWith("'s") || value.endsWith('’s')) value = value.slice(0, -2)
    const kind = cachedKind(value, lex)
    const ambiguous = (kind === 'first' || kind === 'last') && lex.common.has(value.toLowerCase())
    const token: Token = { text: value, start: m.index, end: m.index + value.length, kind, ambiguous, capitalised: true }
    const prev = run[run.length - 1]
    if (prev && (token.start - prev.end !== 1 || text[prev.end] !== ' ')) {
      out.push(run)
      run = []
    }
    run.push(token)
  }
  if (run.length) out.push(run)
  return out
}

/** Splits a run into the stretches that could be a name: capitalised, not ordinary words. */
function candidates(run: Token[]): Token[][] {
  const out: Token[][] = []
  let cur: Token[] = []
  for (const t of run) {
    if (t.capitalised && t.kind !== 'common') cur.push(t)
    else {
      if (cur.length) out.push(cur)
      cur = []
    }
  }
  if (cur.length) out.push(cur)
  // Initials only count inside a name, never at its edges.
  return out
    .map((c) => {
      let s = 0
      let e = c.length
      while (s < e && c[s]!.kind === 'initial') s++
      while (e > s && c[e - 1]!.kind === 'initial') e--
      return c.slice(s, e)
    })
    .filter((c) => c.length > 0)
}

function isName(c: Token[], cued: boolean): boolean {
  if (cued) return true
  const sure = c.filter((t) => (t.kind === 'first' || t.kind === 'last') && !t.ambiguous).length
  const known = c.filter((t) => t.kind === 'first' || t.kind === 'last').length
  const last = c[c.length - 1]!.text.toLowerCase()
  if (c.length >= 2 && c.length <= 4) {
    // "Mijail C Adomo": a capitalised word, an initial, a capitalised word.
    if (c.some((t) => t.kind === 'initial')) return true
    return sure >= 1 || known >= 2 || (SURNAME_ENDING.test(last) && c.every((t) => t.kind !== 'common'))
  }
  if (c.length === 1) return sure === 1 && (c[0]!.kind === 'first' || c[0]!.text.length > 3)
  return false
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
    for (const i of items) if (!lex.common.has(text.slice(i.start, i.end).toLowerCase()) || lex.firstNames.has(text.slice(i.start, i.end).toLowerCase())) found.push(i)
  }
  return found
}

/** Speaker labels in transcripts: a lone capitalised word opening a line and followed by a colon. */
const SPEAKER = /(?<=^|\n)[ \t>]*(\p{Lu}[\p{Ll}\p{M}'’-]+)(?=:)/dgu

function speakers(text: string, lex: NameLexicon): Finding[] {
  const found: Finding[] = []
  SPEAKER.lastIndex = 0
  for (let m = SPEAKER.exec(text); m; m = SPEAKER.exec(text)) {
    const word = m[1]!.toLowerCase()
    if (!lex.never.has(word) && (!lex.common.has(word) || lex.firstNames.has(word))) found.push({ type: 'PERSON', start: m.indices![1]![0], end: m.indices![1]![1] })
  }
  return found
}

/** Whether an honorific or a cue such as "my name is" stands right before `start`. */
function cuedAt(text: string, start: number): boolean {
  if (start === 0) return false
  const head = text.slice(Math.max(0, start - 40), start)
  return HONORIFIC.test(head) || STRONG_CUE.test(head) || NAME_FIELD.test(head)
}

export const person: Detector = {
  type: 'PERSON',
  priority: 2,
  find(text) {
    const lex = nameLexicon()
    const found: Finding[] = []
    for (const run of runs(text, lex)) {
      for (const c of candidates(run)) {
        const start = c[0]!.start
        if (isName(c, false) || cuedAt(text, start)) found.push({ type: 'PERSON', start, end: c[c.length - 1]!.end })
      }
    }
    // Names typed in lower case are only looked for in text written all in lower case.
    if (!/\p{Lu}/u.test(text) && /name|i'?m|i am/.test(text)) found.push(...lowerCaseAfterField(text, lex))
    if (found.length && / (?:and|or|&) /.test(text)) found.push(...enumerated(text, found, lex))
    if (text.includes(':')) found.push(...speakers(text, lex))
    return found
  },
}
