import { matchAll, type Detector, type Finding } from '../finding.js'
import type { TextScan } from '../text-scan.js'

const WORD = "\\p{Lu}[\\p{L}\\p{M}'’.-]*"
const ANY_WORD = "[\\p{L}\\p{M}][\\p{L}\\p{M}'’.-]*"
const NUMBER = '\\d{1,5}(?:[ -]?[A-Za-z](?![\\p{L}]))?\\.?'

/** Street types written after the name (English) … */
const SUFFIX =
  'Street|St\\.?|Road|Rd\\.?|Avenue|Ave\\.?|Lane|Ln\\.?|Drive|Dr\\.?|Court|Ct\\.?|Boulevard|Blvd\\.?|Way|Place|Pl\\.?|Square|Sq\\.?|Parkway|Pkwy\\.?|Highway|Hwy\\.?|Circle|Cir\\.?|Terrace|Trail|Crescent|Close|Grove|Gardens|Islands?|Cliffs?|Creek|Row|Walk|Mews|Alley|Plaza|Loop|Heights|Ridge|Crossing|Junction|Estates?|Harbou?r|Springs?|Meadows?|Valley|Ranch|Village|Shores?|Path|Bypass|Expressway|Freeway|Turnpike|Pike|Ports?|Summit|Knolls?|Fords?|Forges?|Mills?|Manors?|Locks?|Keys?|Lakes?|Oval|Glens?|Flats?|Dale|Common|Burgs?|Bluffs?|Brooks?|Centers?|Corners?|Coves?|Crest|Divide|Extensions?|Falls?|Ferry|Forest|Gateway|Haven|Hollow|Inlet|Isle|Landing|Light|Lodge|Motorway|Orchard|Pass|Pines|Point|Prairie|Radial|Rapids?|Rest|Route|Shoals?|Spur|Stravenue|Stream|Throughway|Trace|Track|Tunnel|Underpass|Unions?|Views?|Villes?|Vista|Wells?'
/** … street types written before it (Romance, Slavic, Greek) … */
const PREFIX =
  'Via|Viale|Vicolo|Piazza|Piazzale|Corso|Largo|Contrada|Strada|Rue|Avenue|Boulevard|Bd|Chemin|Allée|Impasse|Quai|Place|Calle|Avenida|Av\\.|Avda\\.?|Paseo|Camino|Carrer|Rua|Travessa|Praça|Largo|Estrada|ul\\.|ulica|al\\.|Aleja|Plac|Osiedle|Odos|Leoforos|Plateia'
/** … or fused onto it (Germanic, Nordic, Dutch, Finnish, Hungarian, Czech). */
const FUSED =
  '(?:straße|strasse|str\\.|gasse|weg|allee|platz|ring|damm|ufer|steig|pfad|laan|straat|gracht|plein|kade|singel|dijk|steeg|vej|gade|gata|gatan|vägen|väg|veien|vegen|vegur|braut|stræti|gränd|katu|tie|kuja|polku|tori|raitti|utca|út|tér|ulice|náměstí|třída|nábřeží|cesta|ulica|iela|gatvė|tänav|ská|ská)'

/*
 * Gates run on every string with a digit, so each is written for V8's regex engine to skip most
 * positions at once: a literal first character (a space) or a scan for the rare part of the shape.
 */
function tester(regex: RegExp): (text: string) => boolean {
  return (text) => regex.test(text)
}

/**
 * A street type written before the name, opening the text or after a non-alphanumeric. Inside the
 * text, the capitalised types and the lower-case ones (ul., ulica, al.) are looked for apart, the
 * capitalised ones grouped by first letter: V8 then tries few alternatives at each separator, where
 * one alternation with 'u…' and 'a…' in it is tried at nearly every space.
 */
const PREFIX_AT_START = new RegExp(`^(?:${PREFIX}) `)
const CAPITALISED_PREFIX =
  /[^A-Za-z0-9](?:V(?:ia|iale|icolo)|P(?:iazza|iazzale|lace|aseo|raça|lac|lateia)|C(?:orso|ontrada|hemin|alle|amino|arrer)|L(?:argo|eoforos)|Strada|R(?:ue|ua)|A(?:venue|venida|v\.|vda\.?|llée|leja)|B(?:oulevard|d)|Impasse|Quai|Travessa|Estrada|O(?:siedle|dos)) /
const LOWER_CASE_PREFIX = /[^A-Za-z0-9](?:ul(?:\.|ica)|al\.) /

function prefixGate(text: string): boolean {
  return PREFIX_AT_START.test(text) || CAPITALISED_PREFIX.test(text) || LOWER_CASE_PREFIX.test(text)
}

/** Sticky: tried right before a " <digit>", where V8 matches it backwards in a few steps. */
const FUSED_ENDS_HERE = new RegExp(`(?<=${FUSED})`, 'y')
const SPACE_DIGIT = / \d/g

/** A fused street type right before " <digit>": found from the few " <digit>" places, read backwards. */
function fusedBeforeNumber(text: string): boolean {
  SPACE_DIGIT.lastIndex = 0
  // test, not exec: no match object per number; the space stands two places before lastIndex.
  while (SPACE_DIGIT.test(text)) {
    FUSED_ENDS_HERE.lastIndex = SPACE_DIGIT.lastIndex - 2
    if (FUSED_ENDS_HERE.test(text)) return true
  }
  return false
}

/**
 * Street-line shapes, each with a cheap gate: the full pattern (costly, it backtracks over words)
 * runs only on text where the gate finds the literal part of the shape.
 */
const SHAPES: { gate: (text: string, scan: TextScan) => boolean; pattern: string }[] = [
  // 12 Main Street / 2450 Crown St / 903 83 Dora Creek (the street type always follows a space)
  { gate: tester(new RegExp(` (?:${SUFFIX})(?![A-Za-z])`)), pattern: `(?:\\d{1,6} )?${NUMBER} (?:${ANY_WORD} ){0,4}(?:${SUFFIX})(?![\\p{L}])` },
  // Via delle Coste 41 / Rue de Virton 38 / ul. Miła 53 (the street type opens the text or follows a non-alphanumeric)
  { gate: prefixGate, pattern: `(?:\\d{1,6} )?(?:${PREFIX}) (?:${ANY_WORD} ){0,4}${NUMBER}` },
  // Asselsestraat 7 / Friedhofstrasse 33 / Rákóczi út 13 / 255 hersnapvej 18: the type fused onto a
  // name of three letters or more that is capitalised or follows a number, or a word of its own after
  // a name ("ring" and "tie" only after a capitalised one). Not "during 2019", "Bring 3", "a tie 2".
  {
    gate: fusedBeforeNumber,
    pattern:
      `(?:(?:\\d{1,6} )?(?:${WORD} ){0,2}\\p{Lu}\\p{L}{2,}${FUSED}|\\d{1,6} (?:${ANY_WORD} )?\\p{L}{3,}${FUSED}` +
      `|(?:\\d{1,6} )?(?:${WORD} ){1,2}${FUSED}|(?:\\d{1,6} )?${ANY_WORD} (?!ring |tie )${FUSED}) ${NUMBER}`,
  },
  // P.O. Box 211 / PSC 3294, Box 9168
  { gate: (_, scan) => scan.mentions('PO_BOX'), pattern: `(?:P\\.? ?O\\.? Box|PSC \\d{1,5}, Box|Postfach|Apartado) \\d{1,6}` },
  // An address block's street line, "20789 Allika 46": postcode or house number, name, number
  { gate: tester(/(?:^|\n)[ \t>?]*\d{3}/), pattern: `(?<=^|\\n)[ \\t>?]*\\d{3,6} (?:${WORD} ){1,3}${NUMBER}(?=[ \\t]*(?:\\n|,|$))` },
  // Apt. 117 / Suite 464 standing alone
  { gate: (_, scan) => scan.mentions('UNIT'), pattern: `(?:Apt\\.?|Apartment|Suite|Unit|Flat) #?\\d{1,5}[A-Za-z]?` },
]
const CORE = SHAPES.map(({ gate, pattern }) => ({ gate, regex: new RegExp(`(?<![\\p{L}\\p{N}])(?:${pattern})(?![\\p{L}\\p{N}])`, 'gu') }))

/**
 * After an address cue, a capitalised name with a house number is an address whatever its language.
 * The cues are grouped by first letter: this runs over every string with a digit, and V8 then tries
 * few alternatives at each position.
 */
const CUES =
  /(?:a(?:ddress(?:es)?|rrived at)|li(?:ve[sd]? (?:at|on|in)|ved in|ving at)|located at|s(?:ent to|end (?:it |them )?to|hip(?:ped)? to|top at|ide of)|deliver(?:ed)? to|m(?:eet (?:me |you )?at|oved to)|return to|taxi to|is (?:at|on)|corner of|drops you off at)\W{0,3}/gi
/** Sticky: tried only right after a cue. */
const CUED = new RegExp(`(?:\\d{1,6} )?(?:(?:${WORD} ){1,4}${NUMBER}|${NUMBER} (?:${WORD} ?){1,4})(?![\\p{L}\\p{N}])`, 'uy')

function afterCues(text: string, found: Finding[]): void {
  CUES.lastIndex = 0
  for (let cue = CUES.exec(text); cue; cue = CUES.exec(text)) {
    CUED.lastIndex = cue.index + cue[0].length
    const m = CUED.exec(text)
    if (m) found.push({ type: 'ADDRESS', start: m.index, end: m.index + m[0].length })
  }
}

/** What may follow a street line: unit, city, region code, postcode, country; on the same line or the next few. */
const TAIL = new RegExp(
  `^(?:[ \\t]*,[ \\t]*|[ \\t]*\\n\\n?[ \\t>?]*|[ \\t]+)(?:(?:Apt\\.?|Apartment|Suite|Unit|Flat|Floor|#) ?\\d{1,5}[A-Za-z]?|(?:APO|FPO|DPO) [A-Z]{2} \\d{5}|${WORD}(?: ${WORD}){0,3}(?: \\(${WORD}\\))?|[A-Z]{2}|\\d{3,6}(?:-\\d{3,4})?|\\d{2}-\\d{3}|\\d{3} \\d{2}|\\d{4} [A-Z]{2}|[A-Z]\\d[A-Z] ?\\d[A-Z]\\d)(?![\\p{L}\\p{N}])`,
  'u',
)
const STOP_WORDS =
  /(?:Phone|Mobile|Fax|Tel|Email|E-mail|Website|Desk|Office|Name|Date|Dear|Regards|Thanks|Please|The|I|We|You|He|She|They|It|This|That|If|And|Or|But|For|To|From|After|Before|When|Is|Are|Was|Were|In|On|At|Street|Best)(?![\p{L}])/uy

/** How many whitespace, comma and '>' characters open `s`: what stands between a street line and its tail. */
function leadingSeparators(s: string): number {
  let i = 0
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (!(c === 32 || c === 44 || c === 62 || (c >= 9 && c <= 13) || (c > 127 && /\s/.test(s[i]!)))) break
  }
  return i
}

/**
 * Address blocks exported from tables print a missing field as "nan", "null" or "None"
 * ("Asker nan 1386"): such a marker is passed over when a postcode or number follows it.
 */
const MISSING = /^[ \t]*,?[ \t\n>?]*(?:nan|null|None|N\/A)(?![\p{L}\p{N}])/u

/**
 * The characters a tail (TAIL) or a missing-field marker (MISSING) can open with: where the text
 * goes on with another, neither can match, and no slice of it is made.
 */
function mayContinue(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 44 || c === 62 || c === 63 || c === 110 || c === 78
}

function extend(text: string, end: number): number {
  for (let steps = 0; steps < 8; steps++) {
    if (!mayContinue(text.charCodeAt(end))) break
    const rest = text.slice(end, end + 80)
    const skipped = MISSING.exec(rest)
    const m = skipped ?? TAIL.exec(rest)
    if (!m) break
    if (m === skipped) {
      // Passed over only when a postcode or house number comes next, not a word ("nan\nWhatsApp: …").
      const after = end + m[0].length
      const next = TAIL.exec(text.slice(after, after + 80))
      return next && /\d/.test(next[0]) ? extend(text, after) : end
    }
    STOP_WORDS.lastIndex = leadingSeparators(m[0])
    if (STOP_WORDS.test(m[0])) break
    end += m[0].length
  }
  return end
}

export const streetAddress: Detector = {
  type: 'ADDRESS',
  priority: 4,
  find(text, scan) {
    if (!scan.hasDigit) return []
    const found: Finding[] = []
    for (const { gate, regex } of CORE) if (gate(text, scan)) found.push(...matchAll(text, regex, 'ADDRESS'))
    afterCues(text, found)
    // The findings are this call's own: each takes in its tail where it stands.
    for (const f of found) f.end = extend(text, f.end)
    return found
  },
}
