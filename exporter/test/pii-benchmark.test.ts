import assert from 'node:assert/strict'
import { existsSync } from 'node:fs'
import { test } from 'node:test'
import { evaluate, PATTERN_TYPES, presidioDatasetPath } from '../bench/presidio.js'
import { createScrubber } from '../src/index.js'

/** Figures measured when the scrubber landed (npm run bench:pii); they may rise, never fall. */
const FLOOR = {
  precision: 0.952,
  recall: 0.886,
  perType: { PERSON: 0.823, STREET_ADDRESS: 0.914, PHONE_NUMBER: 0.978, US_DRIVER_LICENSE: 1, ZIP_CODE: 0.945 } as Record<string, number>,
}

test('presidio-research benchmark figures never fall below what was measured', { skip: !existsSync(presidioDatasetPath()) && `no dataset at ${presidioDatasetPath()}` }, () => {
  const result = evaluate(createScrubber())
  assert.equal(result.records, 1500)
  assert.ok(result.precision >= FLOOR.precision, `precision ${result.precision}`)
  assert.ok(result.recall >= FLOOR.recall, `recall ${result.recall}`)
  for (const type of PATTERN_TYPES) assert.ok(result.perType[type]!.recall >= 0.99, `${type} recall ${result.perType[type]!.recall}`)
  for (const [type, floor] of Object.entries(FLOOR.perType)) assert.ok(result.perType[type]!.recall >= floor, `${type} recall ${result.perType[type]!.recall}`)
})
