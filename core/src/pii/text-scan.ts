/**
 * The words that tell detectors whether a string can hold what they look for ("born" for a date of
 * birth, "zip" for a postcode, "Bearer" for a token, …), by the name detectors ask for them with.
 * Each family used to be a regex of its own run over every string; V8 pays mostly per position
 * scanned, not per alternative, so one regex over all of them costs about what one of them did.
 * No word of one family may start like a word of another at the same place (see `find`).
 */
const ANY_CASE = {
  SSN_CUE: 'ssn|social sec|soc\\.? ?sec',
  BIRTH_CUE: 'born|birth|dob|d\\.o\\.b|geboren|née? le|nacimiento|nascita',
  POSTCODE_CUE: 'zip|postal|post ?code|plz|cep',
  LICENCE_CUE: 'licen[cs]e',
  AUTH_SCHEME: 'bearer|basic|bot',
  TOKEN: 'token',
  KEY_NAME: 'pass|pwd|secret|key|auth|credential',
  ADDRESS_CUE:
    'address|live[sd]? (?:at|on|in)|lived in|living at|located at|sent to|send (?:it |them )?to|deliver(?:ed)? to|ship(?:ped)? to|meet (?:me |you )?at|moved to|stop at|arrived at|return to|taxi to|is at|is on|corner of|side of|drops you off at',
}
const EXACT_CASE = {
  PO_BOX: 'Box \\d|Postfach|Apartado',
  UNIT: '(?:Apt|Apartment|Suite|Unit|Flat)\\.? #?\\d',
  KEY_PREFIX: 'sk-|[spr]k_|AKIA|ASIA|AGPA|AIDA|AROA|gh[pousr]_|github_pat_|glpat-|xox|AIza|hf_|eyJ|-----BEGIN',
}
export type CueWords = keyof typeof ANY_CASE | keyof typeof EXACT_CASE

interface Family {
  regex: RegExp
  names: CueWords[]
}

function family(words: Record<string, string>, flags: string): Family {
  const names = Object.keys(words) as CueWords[]
  return { regex: new RegExp(names.map((n) => `(${words[n]})`).join('|'), flags), names }
}
const FAMILIES = [family(ANY_CASE, 'gi'), family(EXACT_CASE, 'g')]

/** The cue words present in `text`: each match names its family by the group it filled. */
function find(text: string, { regex, names }: Family, into: Set<CueWords>): void {
  regex.lastIndex = 0
  for (let m = regex.exec(text); m; m = regex.exec(text)) {
    for (let g = 1; g <= names.length; g++) {
      if (m[g] !== undefined) {
        into.add(names[g - 1]!)
        break
      }
    }
    // Words may overlap ("token" inside "tokens=bearer"): the next search starts one character on.
    regex.lastIndex = m.index + 1
  }
}

/**
 * Facts about one string that several detectors gate on, each found once (by regex, which V8 runs
 * faster than a loop over characters) and only when a detector first asks. Most strings in a trace
 * hold no personal value, and these let each detector skip them without a scan of its own.
 */
export class TextScan {
  private digit: boolean | undefined
  private upper: boolean | undefined
  private cues: Set<CueWords> | undefined

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
    if (!this.cues) {
      this.cues = new Set()
      for (const f of FAMILIES) find(this.text, f, this.cues)
    }
    return this.cues.has(name)
  }
}
