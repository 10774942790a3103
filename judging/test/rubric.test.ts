import assert from 'node:assert/strict'
import { test } from 'node:test'
import { BUILTIN_RUBRICS_DIR, type JudgeError, loadRubricDir } from '../src/index.js'
import { normalizeLevel, parseRubric } from '../src/rubric.js'

test('the shipped rubrics load with their dimensions, weights and thresholds', () => {
  const rubrics = loadRubricDir(BUILTIN_RUBRICS_DIR)
  const cs = rubrics.get('customer-support')!
  assert.deepEqual(
    cs.dimensions.map((d) => d.id),
    ['accuracy', 'empathy', 'resolution', 'policy_adherence', 'efficiency'],
  )
  assert.equal(cs.dimensions.reduce((s, d) => s + d.weight, 0).toFixed(6), '1.000000')
  assert.equal(cs.passingThreshold, 0.7)
  assert.deepEqual(
    cs.dimensions.filter((d) => d.risky).map((d) => d.id),
    ['policy_adherence'],
  )
  assert.deepEqual(
    rubrics.get('generic')!.dimensions.map((d) => d.id),
    ['goal_completion', 'groundedness', 'safety_scope', 'communication'],
  )
  assert.equal(normalizeLevel(cs.dimensions[0]!, 4), 0.75)
})

const rubric = (levels: number[], passAt: number) => `
id: t
version: 1.0.0
title: T
passingThreshold: 0.5
dimensions:
  - id: d
    name: D
    definition: a definition long enough
    passAt: ${passAt}
    levels:
${levels.map((l) => `      - { score: ${l}, anchor: "observable anchor ${l}" }`).join('\n')}
`

test('a rubric whose levels skip a number is refused, naming the dimension', () => {
  assert.throws(
    () => parseRubric(rubric([1, 2, 4], 2), 'bad.yaml'),
    (e: JudgeError) => e.code === 'RUBRIC_INVALID' && /levels of 'd' must be consecutive/.test(e.message),
  )
})

test('a rubric whose pass level is not one of its levels is refused', () => {
  assert.throws(() => parseRubric(rubric([1, 2, 3], 5), 'bad.yaml'), /passAt 5 of 'd' is not one of its levels/)
})

test('a rubric without a semver version is refused', () => {
  assert.throws(() => parseRubric(rubric([1, 2], 2).replace('1.0.0', 'v1'), 'bad.yaml'), /version: version is semver/)
})
