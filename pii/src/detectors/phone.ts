import { parsePhoneNumberFromString } from 'libphonenumber-js/min'
import { before, matchAll, type Detector, type Finding } from '../finding.js'

/**
 * International numbers (+ or 00 prefix) are checked against libphonenumber's numbering plans.
 * National numbers have no country to check against, so they need the shape of a phone number
 * (groups, parentheses, a leading trunk 0) or a cue word nearby; bare digit runs such as order
 * numbers pass unless a cue like "call me at" stands before them.
 */
const INTERNATIONAL = /(?<![A-Za-z0-9+])(?:\+|00)\d(?:[ .-]?\(?\d+\)?){2,8}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![A-Za-z0-9])/g
const NATIONAL = /(?<![A-Za-z0-9.,/:_-])\(?\d{1,10}\)?(?:[ .-]{1,2}\(?\d{1,8}\)?){0,5}(?:\s?(?:x|ext\.?)\s?\d{1,5})?(?![A-Za-z0-9]|[.,/:-]\d)/g

const CUE =
  /(?:phone|tel\b|tel\.|telephone|mobile|cell|call|fax|sms|text me|whatsapp|desk|office|reach|dial|ring me|answering|messages to|registered|contact|number is|nummer|téléphone|telefon|móvil|cellulare)/
const CUE_AFTER = /^\W{0,3}(?:office|fax|mobile|cell|home|work|phone|tel)/i
const NOT_A_PHONE =
  /(?:order|invoice|ticket|tracking|sku|ref|reference|account|acct|card|cc|id|no\.?|#|version|build|zip|postal|code|total|amount|price|qty|quantity)\W*(?:number|no\.?|#|is|:)?\W*$/
/** Dates and dotted quads are digit groups too, and never phone numbers. */
const OTHER_SHAPE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4}|\d{1,3}(?:\.\d{1,3}){3})$/

const GATE = /\d[\d ().-]{6}/

function digitCount(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57) n++
  return n
}

/**
 * libphonenumber's verdict, remembered: whether a number is possible depends on its country calling
 * code and its length, and parsing costs tens of microseconds, far more than everything else here.
 */
const possible = new Map<string, boolean>()

function isPossibleInternational(raw: string, digits: number): boolean {
  const key = `${raw.replace(/\D/g, '').slice(0, 3)}|${digits}|${raw.includes('(0)')}`
  let verdict = possible.get(key)
  if (verdict === undefined) {
    if (possible.size > 10_000) possible.clear()
    verdict = parsePhoneNumberFromString(raw)?.isPossible() ?? false
    possible.set(key, verdict)
  }
  return verdict
}

const EXTENSION = /\s?(?:x|ext\.?)\s?\d+$/

/** The number without its extension ("x 204", "ext. 12"); most numbers have none, and no 'x'. */
function withoutExtension(value: string): string {
  return value.includes('x') ? value.replace(EXTENSION, '') : value
}

function international(text: string) {
  if (!text.includes('+') && !text.includes('00')) return []
  return matchAll(text, INTERNATIONAL, 'PHONE', (m) => {
    const raw = withoutExtension(m[0].replace(/^00/, '+'))
    const digits = digitCount(raw)
    return digits >= 8 && digits <= 15 && isPossibleInternational(raw, digits)
  })
}

function national(text: string) {
  return matchAll(text, NATIONAL, 'PHONE', (m) => {
    const value = m[0]
    if (value.length < 7) return false
    const main = withoutExtension(value)
    const digits = digitCount(main)
    if (digits < 7 || digits > 13 || OTHER_SHAPE.test(main)) return false
    const near = before(text, m.index, 40)
    if (NOT_A_PHONE.test(near.slice(-25))) return false
    if (CUE.test(near) || CUE_AFTER.test(text.slice(m.index + value.length, m.index + value.length + 12))) return true
    const groups = main.split(/[ .-]+/).length
    const shaped = main.includes('(') || groups >= 3 || (groups === 2 && main[0] === '0')
    return shaped && digits >= 8 && digits <= 12
  })
}

/** "(+44 20 7946 0958)": a closing parenthesis without its opening one belongs to the sentence. */
function unbalanced(text: string, f: Finding): Finding {
  const value = text.slice(f.start, f.end)
  return value.endsWith(')') && !value.includes('(') ? { ...f, end: f.end - 1 } : f
}

export const phone: Detector = {
  type: 'PHONE',
  priority: 6,
  // Seven digits at least, whatever the separators: most strings have no such run and are skipped at once.
  find: (text, scan) =>
    scan.hasDigit && GATE.test(text)
      ? international(text)
          .concat(national(text))
          .map((f) => unbalanced(text, f))
      : [],
}
