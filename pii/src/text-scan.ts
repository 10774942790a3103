/**
 * The words that tell detectors whether a string can hold what they look for ("born" for a date of
 * birth, "zip" for a postcode, "Bearer" for a token, …), by the name detectors ask for them with.
 */
const ANY_CASE = {
  SSN_CUE: 'ssn|social sec|soc\\.? ?sec',
  BIRTH_CUE: 'b(?:orn|irth)|d(?:ob|\\.o\\.b)|geboren|née? le|na(?:cimiento|scita)',
  POSTCODE_CUE: 'zip|postal|post ?code|plz|cep',
  LICENCE_CUE: 'licen[cs]e',
  AUTH_SCHEME: 'bearer|basic|bot',
  TOKEN: 'token',
  KEY_NAME: 'pass|pwd|secret|key|auth|credential',
}
const EXACT_CASE = {
  PO_BOX: 'Box \\d|Postfach|Apartado',
  UNIT: '(?:Apt|Apartment|Suite|Unit|Flat)\\.? #?\\d',
  // sk-, [spr]k_, AKIA, ASIA, AGPA, AIDA, AROA, AIza, gh[pousr]_, github_pat_, glpat-, xox, hf_, eyJ, -----BEGIN;
  // grouped by first letters, which V8 tries faster than the alternatives one by one.
  KEY_PREFIX: 'sk[-_]|[pr]k_|A(?:KIA|SIA|GPA|IDA|ROA|Iza)|g(?:h[pousr]_|ithub_pat_|lpat-)|xox|hf_|eyJ|-----BEGIN',
}
export type CueWords = keyof typeof ANY_CASE | keyof typeof EXACT_CASE

/** One regex and one bit per name: a scan keeps what it has asked and what was found in two integers. */
const CUE_NAMES = [...Object.keys(ANY_CASE), ...Object.keys(EXACT_CASE)] as CueWords[]
const CUE_REGEXES = [...Object.values(ANY_CASE).map((source) => new RegExp(source, 'i')), ...Object.values(EXACT_CASE).map((source) => new RegExp(source))]
const CUE_INDEX = Object.fromEntries(CUE_NAMES.map((name, i) => [name, i])) as Record<CueWords, number>

/**
 * Facts about one string that several detectors gate on, each found once (by a regex, which V8 runs
 * faster than a loop over characters) and only when a detector first asks. Most strings in a trace
 * hold no personal value, and these let each detector skip them without a scan of its own.
 */
export class TextScan {
  private digit: boolean | undefined
  private upper: boolean | undefined
  private asked = 0
  private present = 0

  constructor(readonly text: string) {}

  /** Whether the text has an ASCII digit: every number-shaped value (phone, card, address, …) needs one. */
  get hasDigit(): boolean {
    return (this.digit ??= /\d/.test(this.text))
  }

  /** Whether the text has an upper-case letter (\p{Lu}). */
  get hasUpper(): boolean {
    return (this.upper ??= /\p{Lu}/u.test(this.text))
  }

  /** Whether one of the cue words of `name` occurs in the text. */
  mentions(name: CueWords): boolean {
    const i = CUE_INDEX[name]
    const bit = 1 << i
    if (!(this.asked & bit)) {
      this.asked |= bit
      if (CUE_REGEXES[i]!.test(this.text)) this.present |= bit
    }
    return (this.present & bit) !== 0
  }
}
