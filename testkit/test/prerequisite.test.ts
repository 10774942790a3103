import assert from 'node:assert/strict'
import { test } from 'node:test'
import { prerequisite } from '../src/prerequisite.js'

test('a missing prerequisite skips on a developer machine and fails under CI, naming what is missing', () => {
  assert.equal(prerequisite('no helm', {}), 'no helm')
  assert.equal(prerequisite('no helm', { CI: 'false' }), 'no helm')
  assert.throws(() => prerequisite('no helm', { CI: 'true' }), /CI is set and a test prerequisite is missing: no helm/)
  assert.equal(prerequisite(false, { CI: 'true' }), false)
})
