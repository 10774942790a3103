import { isIPv6 } from 'node:net'
import { matchAll, type Detector } from '../finding.js'

const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)'
// Not inside a longer dotted run (version strings such as 1.2.3.4.5) and not after a 'v' (v1.2.3.4).
const IPV4 = new RegExp(`(?<![\\p{L}\\p{N}_]|\\d\\.)${OCTET}(?:\\.${OCTET}){3}(?![\\p{N}_]|\\.\\d)`, 'gu')
const IPV6 = /(?<![\p{L}\p{N}_:.])(?:[0-9A-Fa-f]{0,4}:){2,7}(?:[0-9A-Fa-f]{1,4}|(?:\d{1,3}\.){3}\d{1,3})?(?![\p{L}\p{N}_:])/gu

export const ipAddress: Detector = {
  type: 'IP_ADDRESS',
  priority: 7,
  find(text, scan) {
    const v4 = !scan.hasDigit || !/\d\.\d/.test(text) ? [] : matchAll(text, IPV4, 'IP_ADDRESS')
    // Clock times and MAC addresses also have colons; node's parser keeps only real IPv6.
    const v6 = /[0-9a-fA-F]:[0-9a-fA-F:]/.test(text) ? matchAll(text, IPV6, 'IP_ADDRESS', (m) => m[0].length > 4 && m[0] !== '::' && isIPv6(m[0])) : []
    return v4.concat(v6)
  },
}
