import assert from 'node:assert/strict'
import { test } from 'node:test'
import { exampleJudge } from '../src/eval/judge-figures.js'
import type { RunJudgement } from '../src/eval/replay-judge.js'

function run(score: number | undefined, dimensions: Record<string, number>, extra: Partial<RunJudgement> = {}): RunJudgement {
  return {
    rubric: 'generic',
    rubricVersion: '1.0.0',
    passingThreshold: 0.7,
    ...(score === undefined ? {} : { score, passed: score >= 0.7 }),
    dimensions: Object.fromEntries(Object.entries(dimensions).map(([id, value]) => [id, { value, passed: value >= 0.5 }])),
    belowFloor: [],
    unreachable: false,
    calls: 2,
    inputTokens: 2000,
    outputTokens: 200,
    costUsd: 0.007,
    ...extra,
  }
}

test("an example's judge figures average the judged runs; a run with a judge error counts in neither mean nor pass rate", () => {
  const j = exampleJudge([
    run(0.9, { a: 1, b: 0.8 }),
    run(0.5, { a: 0.5, b: 0.5 }),
    run(undefined, { a: 0 }, { error: 'PROVIDER_UNAVAILABLE: down', dimensions: { a: { error: 'PROVIDER_UNAVAILABLE: down' } } }),
  ])!
  assert.deepEqual([j.rubric, j.judged, j.errors, j.mean, j.passRate], ['generic@1.0.0', 2, 1, 0.7, 0.5])
  assert.deepEqual(j.dimensions, { a: 0.75, b: 0.65 })
})
