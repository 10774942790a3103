import assert from 'node:assert/strict'
import { test } from 'node:test'
import { findPii } from '../src/trace/pii.js'

const kinds = (text: string) => findPii(text).map((f) => `${f.kind}:${f.normalized}`)

test('a phone number written two ways normalizes to the same value', () => {
  const [said] = findPii('Call me on +1 (415) 555-0100 please')
  const [echoed] = findPii('I will call 415.555.0100 tomorrow')
  assert.equal(said?.kind, 'phone')
  assert.equal(echoed?.kind, 'phone')
  assert.equal(said?.normalized, echoed?.normalized)
})

test('a Luhn-valid card number is a card, not a phone, and an invalid one is neither', () => {
  assert.deepEqual(kinds('card 4111 1111 1111 1111 on file'), ['credit_card:4111111111111111'])
  assert.deepEqual(kinds('card 4111 1111 1111 1112 on file'), [])
})

test('finds emails, SSNs, IBANs and IP addresses with their comparable forms', () => {
  assert.deepEqual(kinds('Jane.Doe@Example.com, SSN 123-45-6789, IBAN DE89 3704 0044 0532 0130 00, from 192.168.1.20'), [
    'email:jane.doe@example.com',
    'ssn:123456789',
    'iban:DE89370400440532013000',
    'ip_address:192.168.1.20',
  ])
})

test('IBAN-shaped strings with wrong check digits and dates are not PII', () => {
  // The scrubber's detectors verify the IBAN checksum and know dates are not phone numbers.
  assert.deepEqual(kinds('ref DE00370400440532013000 shipped 2024-05-01 12:30'), [])
})

test('only the kinds asked for are looked for', () => {
  assert.deepEqual(
    findPii('a@b.io or 192.168.1.20', ['ip_address']).map((f) => f.kind),
    ['ip_address'],
  )
})
