import { test } from 'node:test'
import assert from 'node:assert/strict'
import { decodeSpanRecord, encodeSpanRecord, SpanRecordError, SPAN_RECORD_VERSION } from '@sieve/collector'
import { makeSpan } from '../support/spans.js'

test('a span survives encoding and decoding unchanged, attribute types included', () => {
  const span = makeSpan({ attributes: { s: 'x', n: 1.5, b: false, nil: null, arr: [1, 'two', [true]], kv: { nested: { deep: 3 } } } })
  const record = encodeSpanRecord(span)
  assert.equal(record[0], SPAN_RECORD_VERSION)
  assert.deepEqual(decodeSpanRecord(record), span)
})

test('a record of another version, not JSON, or not a span is refused with the reason', () => {
  const good = encodeSpanRecord(makeSpan())
  const otherVersion = Buffer.from(good)
  otherVersion[0] = 9
  assert.throws(() => decodeSpanRecord(otherVersion), (e: Error) => e instanceof SpanRecordError && /version 9/.test(e.message))
  assert.throws(() => decodeSpanRecord(Buffer.from([SPAN_RECORD_VERSION, 0x7b])), /not valid JSON/)
  const badId = encodeSpanRecord({ ...makeSpan(), traceId: 'XYZ' })
  assert.throws(() => decodeSpanRecord(badId), /traceId: must be 32 lower-case hex digits/)
  assert.throws(() => decodeSpanRecord(null), /empty record/)
})
