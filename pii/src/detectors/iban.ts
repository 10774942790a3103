import { ibanValid } from '../checksums.js'
import { matchAll, type Detector } from '../finding.js'

/** Country code, check digits, then 11 to 30 letters or digits: compact (any case) or printed in groups of four. */
const CANDIDATE = /(?<![\p{L}\p{N}])(?:[A-Za-z]{2}\d{2}[A-Za-z0-9]{11,30}|[A-Z]{2}\d{2}(?: [A-Z0-9]{4}){2,7}(?: [A-Z0-9]{1,3})?)(?![\p{L}\p{N}])/gu

/** Country code and check digits: the start every IBAN shares, rare elsewhere. */
const GATE = /[A-Za-z]{2}\d{2}/

export const iban: Detector = {
  type: 'IBAN',
  priority: 10,
  find: (text, scan) =>
    !scan.hasDigit || !GATE.test(text)
      ? []
      : matchAll(text, CANDIDATE, 'IBAN', (m) => {
          const compact = m[0].replace(/ /g, '')
          return compact.length >= 15 && compact.length <= 34 && ibanValid(compact)
        }),
}
