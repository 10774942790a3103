import { groupSpan, matchAll, type Detector } from '../finding.js'

/** Postcodes alone are numbers like any other: taken after a postcode cue (inside addresses the address detector has them). */
const CUED = /\b(?:zip(?: ?code)?|postal ?code|post ?code|postcode|plz|cep)\b(?: is)?\W{0,3}(\d{3,5}(?:[- ]\d{2,4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d|\d{4} ?[A-Z]{2}|[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2})(?![\p{L}\p{N}])/dgiu

const GATE = /zip|postal|post ?code|plz|cep/i

export const zipCode: Detector = {
  type: 'ZIP_CODE',
  priority: 5,
  find: (text) => (!GATE.test(text) ? [] : matchAll(text, CUED, 'ZIP_CODE', (m) => groupSpan(m, 1))),
}
