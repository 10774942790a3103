import { groupSpan, matchAll, type Detector, type Finding } from '../finding.js'

/**
 * Postcodes alone are numbers like any other, so they are taken in two places only (inside a
 * street address the address detector has them):
 * - after a postcode cue: "zip 94107", "ZIP: 94107-1234", "postcode SW1A 1AA", "PLZ 10115",
 *   "code postal 75001", "CEP 01310-100";
 * - right after a place named after "in": "in København K 1421", "in Quinta de São Tiago 3610-114",
 *   "in Överturingen 840 24", when the number ends the phrase (punctuation or a small word such as
 *   "in", "and" or "or" follows, never a noun or a verb: "in Munich 12000 people" keeps its count). Four-digit
 *   numbers from 1900 to 2099 are years there ("in Paris 2019"), not postcodes.
 * Shapes: 3 to 5 digits with an optional extension (ZIP+4, Brazil's 01310-100, Portugal's 3610-114,
 * Sweden's 840 24), Canada's A1A 1A1, the Netherlands' 1234 AB, and the UK's outward/inward codes.
 */
const CUED =
  /\b(?:zip(?: ?code)?|postal ?code|post ?code|postcode|plz|cep)\b(?: is)?\W{0,3}(\d{4} ?[A-Z]{2}|\d{3,5}(?:[- ]\d{2,4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})(?![\p{L}\p{N}])/dgiu
/** The cue is matched in any case, so the Dutch 1234 AB form is checked for its capitals here ("zip 1234 is" keeps "is"). */
const DUTCH_IN_ANY_CASE = /^\d{4} ?[a-z]{2}$/i
const DUTCH = /^\d{4} ?[A-Z]{2}$/

function cuedCode(m: RegExpExecArray): [number, number] | false {
  const span = groupSpan(m, 1)
  if (!span) return false
  const code = m[1]!
  return DUTCH_IN_ANY_CASE.test(code) && !DUTCH.test(code) ? [span[0], span[0] + 4] : span
}

const PLACE_WORD = "(?:\\p{Lu}[\\p{L}\\p{M}'’.-]*|de|da|do|dos|das|del|della|di|du|la|le|les|van|von|der|den|am|im|an|sur)"
const AFTER_PLACE = new RegExp(
  `\\bin \\p{Lu}[\\p{L}\\p{M}'’.-]*(?: ${PLACE_WORD}){0,3} (\\d{4,5}(?:-\\d{3,4})?|\\d{3} \\d{2})(?=[ \\t]*(?:$|[\\n,.;:!?)])|[ \\t]+(?:in|and|or)\\b)`,
  'dgu',
)
const YEAR = /^(?:19|20)\d\d$/

export const zipCode: Detector = {
  type: 'ZIP_CODE',
  // Above PHONE: after a postcode cue, "01310-100" is a postcode, though it reads as a phone number too.
  priority: 7,
  find(text, scan) {
    if (!scan.hasDigit) return []
    const found: Finding[] = scan.mentions('POSTCODE_CUE') ? matchAll(text, CUED, 'ZIP_CODE', cuedCode) : []
    if (text.includes('in ')) found.push(...matchAll(text, AFTER_PLACE, 'ZIP_CODE', (m) => !YEAR.test(m[1]!) && groupSpan(m, 1)))
    return found
  },
}
