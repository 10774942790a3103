import { groupSpan, matchAll, type Detector } from '../finding.js'

/** Licence numbers have no common format across issuers: taken only right after a licence cue. */
const CUED = /\bdriver'?s?['’]?s? licen[cs]e(?: (?:number|no\.?|#|id))?(?: is)?\W{0,3}([A-Z0-9][A-Z0-9-]{4,19})(?![\p{L}\p{N}])/dgiu

export const driverLicence: Detector = {
  type: 'DRIVER_LICENCE',
  priority: 5,
  find: (text, scan) =>
    !scan.hasDigit || !scan.mentions('LICENCE_CUE') ? [] : matchAll(text, CUED, 'DRIVER_LICENCE', (m) => (/\d/.test(m[1]!) ? groupSpan(m, 1) : false)),
}
