import { before, matchAll, type Detector } from '../finding.js'

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?'
const DATE = new RegExp(
  [
    '\\d{4}-\\d{1,2}-\\d{1,2}(?:[ T]\\d{1,2}:\\d{2}(?::\\d{2})?)?',
    '\\d{1,2}[/.-]\\d{1,2}[/.-]\\d{2,4}',
    `${MONTH} \\d{1,2}(?:st|nd|rd|th)?,? \\d{4}`,
    `\\d{1,2}(?:st|nd|rd|th)?(?: of)? ${MONTH},? \\d{4}`,
    `${MONTH},? \\d{4}`,
    '\\d{4}',
  ].join('|'),
  'gi',
)
const BOUNDED = new RegExp(`(?<![\\p{L}\\p{N}])(?:${DATE.source})(?![\\p{L}\\p{N}])`, 'giu')

/**
 * Dates are kept (timestamps, delivery dates) unless a birth cue stands just before them:
 * only a date of birth identifies a person. A bare year needs the cue right before it.
 */
const CUE = /(?:born|birth|\bdob\b|d\.o\.b|birthday|geboren|née? le|nacimiento|nascita)/
const YEAR_CUE = /(?:born|birth|\bdob\b)\W*(?:in|on)?\W*$/

export const dateOfBirth: Detector = {
  type: 'DATE_OF_BIRTH',
  priority: 5,
  find: (text, scan) =>
    !scan.hasDigit || !scan.mentions('BIRTH_CUE')
      ? []
      : matchAll(text, BOUNDED, 'DATE_OF_BIRTH', (m) => {
          const near = before(text, m.index, 40)
          if (/^\d{4}$/.test(m[0])) return YEAR_CUE.test(near)
          return CUE.test(near)
        }),
}
