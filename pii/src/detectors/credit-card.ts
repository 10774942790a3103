import { luhnValid } from '../checksums.js'
import { matchAll, type Detector } from '../finding.js'

/** 12 to 19 digits, optionally in groups split by single spaces or dashes. */
const CANDIDATE = /(?<![A-Za-z0-9.,_-])\d(?:[ -]?\d){11,18}(?![A-Za-z0-9_]|[.,-]\d)/g
const GATE = /\d{4}/

/** Issuer prefixes in use (Visa, Mastercard incl. 2-series, Amex, Diners, Discover, JCB, Maestro, UnionPay). */
const ISSUER = /^(?:4|5[0-9]|2(?:2[2-9]|[3-6]|7[01]|720)|3[0-8]|6|1800|2131)/

export const creditCard: Detector = {
  type: 'CREDIT_CARD',
  priority: 10,
  find: (text, scan) =>
    !scan.hasDigit || !GATE.test(text)
      ? []
      : matchAll(text, CANDIDATE, 'CREDIT_CARD', (m) => {
          const digits = m[0].replace(/[ -]/g, '')
          return ISSUER.test(digits) && luhnValid(digits)
        }),
}
