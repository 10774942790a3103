import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TextScan } from '@sieve/pii'

test('cue words are found in any case, except provider key prefixes, P.O. boxes and units, which are found as written', () => {
  const scan = new TextScan('DATE OF BIRTH: 1990-02-01, Zip 94107, Authorization: Bearer abc, AKIA key, Apt. 4')
  for (const name of ['BIRTH_CUE', 'POSTCODE_CUE', 'AUTH_SCHEME', 'KEY_NAME', 'KEY_PREFIX', 'UNIT'] as const) assert.equal(scan.mentions(name), true, name)
  for (const name of ['SSN_CUE', 'LICENCE_CUE', 'PO_BOX'] as const) assert.equal(scan.mentions(name), false, name)
  const lower = new TextScan('akia is not a key prefix here, apt. 4 is not a unit, box 12 not a p.o. box')
  for (const name of ['KEY_PREFIX', 'UNIT', 'PO_BOX'] as const) assert.equal(lower.mentions(name), false, name)
})

test('digits and capitals are told apart from letters of other scripts', () => {
  assert.equal(new TextScan('ĽUBICA').hasUpper, true)
  assert.equal(new TextScan('ľubica ٣').hasUpper, false)
  assert.equal(new TextScan('ľubica ٣').hasDigit, false)
  assert.equal(new TextScan('room 4').hasDigit, true)
})
