import { before, matchAll, type Detector } from '../finding.js'

const DASHED = /(?<![A-Za-z0-9-])(\d{3})-(\d{2})-(\d{4})(?![A-Za-z0-9]|-\d)/g
const BARE = /(?<![A-Za-z0-9-])(\d{3}) ?(\d{2}) ?(\d{4})(?![A-Za-z0-9]|-\d)/g
const CUE = /\b(?:ssn|social security|soc\.? sec)/

/** Numbers the SSA never issues: area 000, 666 or 9xx, group 00, serial 0000. */
function issuable(area: string, group: string, serial: string): boolean {
  return area !== '000' && area !== '666' && area[0] !== '9' && group !== '00' && serial !== '0000'
}

export const ssn: Detector = {
  type: 'SSN',
  priority: 9,
  find(text, scan) {
    if (!scan.hasDigit || !/\d{3}/.test(text)) return []
    const dashed = matchAll(text, DASHED, 'SSN', (m) => issuable(m[1]!, m[2]!, m[3]!))
    // Nine bare digits are too common to take alone: only next to an SSN cue.
    if (!scan.mentions('SSN_CUE')) return dashed
    const bare = matchAll(text, BARE, 'SSN', (m) => issuable(m[1]!, m[2]!, m[3]!) && CUE.test(before(text, m.index, 40)))
    return dashed.concat(bare)
  },
}
