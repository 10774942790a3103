import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createScrubber, scrubOptionsSchema } from '../src/index.js'

test('gives the same value the same placeholder throughout an example, and numbers each kind separately', () => {
  const scrubber = createScrubber()
  const out = scrubber.scrub({
    input: 'I am Jana Nováková, write to jana.novakova@example.cz or JANA.NOVAKOVA@example.cz',
    output: 'Sent a copy to jana.novakova@example.cz and ops@example.com',
  })
  assert.equal(out.input, 'I am <PERSON_1>, write to <EMAIL_1> or <EMAIL_1>')
  assert.equal(out.output, 'Sent a copy to <EMAIL_1> and <EMAIL_2>')
})

test('a capitalised ordinary word right after a first name is its surname: the whole name is one placeholder', () => {
  const scrubber = createScrubber()
  const out = scrubber.scrub({ input: 'Customer C-17 is Ann Example, since 2021.', output: 'Refunded Ann Example. Thanks, Ann' })
  assert.equal(out.input, 'Customer C-17 is <PERSON_1>, since 2021.')
  assert.equal(out.output, 'Refunded <PERSON_1>. Thanks, <PERSON_2>')
})

test('starts numbering afresh in each example when no secret is configured', () => {
  const scrubber = createScrubber()
  assert.equal(scrubber.scrub('mail b@example.com'), 'mail <EMAIL_1>')
  assert.equal(scrubber.scrub('mail a@example.com'), 'mail <EMAIL_1>')
})

test('with a secret, placeholders are keyed hashes: stable across examples, different per key, value not recoverable from them', () => {
  const a = createScrubber({ secret: 'team-secret-0123456789' })
  const b = createScrubber({ secret: 'other-secret-0123456789' })
  const first = a.scrub('card 4111 1111 1111 1111')
  assert.equal(a.scrub('the card 4111-1111-1111-1111 again'), `the ${first} again`.replace('card ', 'card '))
  assert.match(first, /^card <CREDIT_CARD_[0-9a-f]{8}>$/)
  assert.notEqual(b.scrub('card 4111 1111 1111 1111'), first)
  assert.ok(!first.includes('4111'))
})

test('scrubs every string in nested tool arguments and results, and leaves numbers, booleans and keys alone', () => {
  const input = {
    tool_calls: [{ name: 'lookup_customer', arguments: { email: 'li.wei@example.com', phone: '+44 20 7946 0958', order_id: 'ORD-884211' } }],
    result: { customer: { name: 'Customer Li Wei', cards: ['5500 0000 0000 0004'] }, total: 129.5, refundable: true },
  }
  const before = structuredClone(input)
  const out = createScrubber().scrub(input)
  assert.deepEqual(input, before, 'the input is left as it was')
  assert.deepEqual(out, {
    tool_calls: [{ name: 'lookup_customer', arguments: { email: '<EMAIL_1>', phone: '<PHONE_1>', order_id: 'ORD-884211' } }],
    result: { customer: { name: 'Customer <PERSON_1>', cards: ['<CREDIT_CARD_1>'] }, total: 129.5, refundable: true },
  })
})

test('takes a postcode after a postcode cue or right after a place named after "in", and keeps years and counts there', () => {
  const scrubber = createScrubber()
  assert.equal(scrubber.scrub('ZIP: 94107-1234'), 'ZIP: <ZIP_CODE_1>')
  assert.equal(scrubber.scrub('my postcode is SW1A 1AA'), 'my postcode is <ZIP_CODE_1>')
  assert.equal(scrubber.scrub('We moved to an office in København K 1421.'), 'We moved to an office in København K <ZIP_CODE_1>.')
  assert.equal(
    scrubber.scrub('Looking to support Allianz in Acquapendente 1021 in its mission'),
    'Looking to support Allianz in Acquapendente <ZIP_CODE_1> in its mission',
  )
  for (const kept of [
    'The office opened in Paris 2019.',
    'In Munich 12000 people came.',
    'Stock in Warehouse 4031 is low',
    'Order ORD-40311 shipped in 2 boxes',
  ]) {
    assert.equal(scrubber.scrub(kept), kept)
  }
})

test('an address block reads past a missing-field marker ("nan", "null") to the postcode after it, and not past one that ends it', () => {
  const scrubber = createScrubber()
  const block = scrubber.scrub('Billing address: Ana Dias\n    31401 ul. Słowicza 10 Apt. 360\n   Wrocław\n    nan\n    53-320')
  assert.ok(!block.includes('53-320') && !block.includes('Słowicza'), block)
  assert.equal(scrubber.scrub('12 Main Street\nSpringfield\nnan\nNone of this is right'), '<ADDRESS_1>\nnan\nNone of this is right')
})

test('does not take a 16-digit number that fails the Luhn check for a card', () => {
  assert.equal(createScrubber().scrub('order 4111 1111 1111 1112 shipped'), 'order 4111 1111 1111 1112 shipped')
})

test('does not take an IBAN-shaped string whose check digits are wrong', () => {
  assert.equal(createScrubber().scrub('ref DE00370400440532013000'), 'ref DE00370400440532013000')
})

test('scrubs business ids configured as sensitive, and keeps allowed values', () => {
  const scrubber = createScrubber({ sensitive: [{ type: 'ACCOUNT_ID', pattern: 'ACC-\\d{6}' }], allow: ['support@sieve\\.example'] })
  assert.equal(scrubber.scrub('ACC-123456 wrote to support@sieve.example from me@home.example'), '<ACCOUNT_ID_1> wrote to support@sieve.example from <EMAIL_1>')
})

test('a disabled detector finds nothing', () => {
  assert.equal(createScrubber({ disable: ['IP_ADDRESS'] }).scrub('from 203.0.113.9'), 'from 203.0.113.9')
})

test('rejects options it cannot use with a message naming the field', () => {
  const result = scrubOptionsSchema.safeParse({ secret: 'short', sensitive: [{ type: 'order id', pattern: '(' }] })
  assert.equal(result.success, false)
  const paths = result.error!.issues.map((i) => `${i.path.join('.')}: ${i.message}`)
  assert.ok(
    paths.some((p) => p.startsWith('secret:')),
    paths.join('\n'),
  )
  assert.ok(
    paths.some((p) => p.startsWith('sensitive.0.type:')),
    paths.join('\n'),
  )
  assert.ok(
    paths.some((p) => p.startsWith('sensitive.0.pattern:')),
    paths.join('\n'),
  )
})

test('keeps each value its placeholder in an example holding many values of several kinds', () => {
  const scrubber = createScrubber()
  const emails = Array.from({ length: 40 }, (_, i) => `user${i}@example.com`)
  const ips = Array.from({ length: 20 }, (_, i) => `10.0.${i}.7`)
  const out = scrubber.scrub({
    first: emails.map((email, i) => (i < ips.length ? `${email} ${ips[i]}` : email)).join(' '),
    again: [emails[2]!, emails[39]!.toUpperCase(), ips[19]!, emails[17]!, ips[0]!].join(' '),
  })
  assert.equal(out.first, emails.map((_, i) => (i < ips.length ? `<EMAIL_${i + 1}> <IP_ADDRESS_${i + 1}>` : `<EMAIL_${i + 1}>`)).join(' '))
  assert.equal(out.again, '<EMAIL_3> <EMAIL_40> <IP_ADDRESS_20> <EMAIL_18> <IP_ADDRESS_1>')
})

test('scrubbing a batch gives each value what scrubbing it alone gives, or one scope for all when one is passed', () => {
  const values = [
    { input: 'I am Jana Nováková, call +44 20 7946 0958', tool: { email: 'jana@example.cz', order: 'ORD-123456' } },
    'mail ops@example.com or jana@example.cz',
    ['Dear Oluwaseun Adeyemi,', { key: 'sk-abcdefghijklmnopqrstuvwxyz123456', n: 3, ok: true }],
    'I am Jana Nováková, call +44 20 7946 0958',
  ]
  const batch = createScrubber().scrubEach(values)
  assert.deepEqual(
    batch,
    values.map((v) => createScrubber().scrub(v)),
  )
  assert.equal(batch[1], 'mail <EMAIL_1> or <EMAIL_2>')

  const shared = createScrubber()
  const scope = shared.newExample()
  assert.deepEqual(shared.scrubEach(['write jana@example.cz', 'or ops@example.com', 'JANA@example.cz'], scope), [
    'write <EMAIL_1>',
    'or <EMAIL_2>',
    '<EMAIL_1>',
  ])
})
