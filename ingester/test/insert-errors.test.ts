import assert from 'node:assert/strict'
import { test } from 'node:test'
import { UnprocessableSpansError } from '@sieve/core'
import { classifyInsertError } from '../src/insert-errors.js'

test('an insert refused for its data is dead-lettered; one refused for now (memory, parts) is retried', () => {
  const parse = classifyInsertError(new Error("Code: 27. DB::Exception: Cannot parse input: expected '\"' before: 'x'"))
  assert.ok(parse instanceof UnprocessableSpansError)
  assert.match(parse.reason, /ClickHouse error 27 CANNOT_PARSE_INPUT_ASSERTION_FAILED/)
  // SIEVE_ENGINE_MAX_MEMORY reached: the spans are fine, the engine has no room now.
  const memory = new Error('Code: 241. DB::Exception: (total) memory limit exceeded: would use 2.00 GiB')
  assert.equal(classifyInsertError(memory), memory)
  const parts = Object.assign(new Error('Too many parts'), { code: '252' })
  assert.equal(classifyInsertError(parts), parts)
})
