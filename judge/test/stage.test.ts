import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { scoreRecordSchema } from '@sieve/scoring'
import {
  dimensionOf,
  failsTwiceThenAnswers,
  failWith,
  startFakeOpenAI,
  verdict,
  type FakeOpenAI,
  type ModelRequest,
  type Step,
  supportConversation,
  numberedTraceId,
} from '@sieve/testkit'
import { judgeStage } from './stage-harness.js'

let server: FakeOpenAI

before(async () => {
  server = await startFakeOpenAI({ script: [] })
})
after(() => server.close())

function stage(section: Record<string, unknown>, script: (r: ModelRequest) => Step, now?: () => number) {
  // Judge calls on the test's thread: these tests are about what the stage decides.
  return judgeStage(server, section, script, { inThread: true, ...(now ? { now } : {}) })
}

test('every judged dimension is stored with rubric, model, prompt version, evidence, cost, tokens and sample reason', async () => {
  const { stage: s, records } = stage({ sampling: { rate: 1 }, rubrics: { default: 'customer-support' } }, (r) => verdict(r, 4))
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] }), 'random')
  await s.drain()
  assert.equal(records.length, 6)
  for (const r of records) scoreRecordSchema.parse(r)
  const accuracy = records.find((r) => r.scorerName === 'customer-support.accuracy')!
  assert.equal(accuracy.kind, 'judge')
  assert.equal(accuracy.rubricId, 'customer-support')
  assert.equal(accuracy.rubricVersion, '1.0.0')
  assert.equal(accuracy.judgeModel, 'judge-2025-01-01')
  assert.equal(accuracy.promptVersion, '3')
  assert.equal(accuracy.sampleReason, 'random')
  assert.equal(accuracy.value, 0.75)
  assert.equal(accuracy.passed, true)
  assert.equal(accuracy.error, '')
  assert.equal(accuracy.evaluationLabel, 'pass')
  assert.equal(accuracy.evaluationExplanation, 'The agent answered from the tool result.')
  assert.deepEqual(JSON.parse(accuracy.evidence), [{ turn: 2, spanId: 'a000000000000002', quote: 'Where is my order A1?' }])
  assert.equal(accuracy.inputTokens, 1000)
  assert.equal(accuracy.outputTokens, 100)
  assert.equal(accuracy.costUsd, (1000 * 1 + 100 * 2) / 1e6)
  assert.equal(accuracy.serviceName, 'support-bot')
  assert.equal(accuracy.model, 'gpt-4o-2024-08-06')
  const overall = records.find((r) => r.scorerName === 'customer-support')!
  assert.equal(overall.passed, true)
  // policy_adherence is 1..4, so level 4 is 1.0; the others are 1..5 (0.75), except efficiency (1..4 → 1.0).
  assert.equal(overall.value.toFixed(4), (0.3 * 0.75 + 0.15 * 0.75 + 0.3 * 0.75 + 0.15 * 1 + 0.1 * 1).toFixed(4))
})

test('the daily call budget stops calls exactly at the limit and counts the skips', async () => {
  // generic rubric: 4 calls a trace; 4 traces fit in 18 calls, the 5th would need 20.
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 }, budgets: { callsPerDay: 18 } }, (r) => verdict(r, 3))
  for (let i = 1; i <= 10; i++) s.offer({ trace: supportConversation(numberedTraceId(i)), checks: [] })
  await s.drain()
  assert.equal(server.requests.length, 16)
  assert.equal(new Set(records.map((r) => r.traceId)).size, 4)
  assert.equal(metrics.get('skipped{slice=random,reason=calls_per_day}'), 6)
  assert.equal(s.budget().callsToday, 16)
})

test('the per-minute budget opens again in the next minute', async () => {
  let now = 0
  const { stage: s, metrics } = stage(
    { sampling: { rate: 1 }, budgets: { callsPerMinute: 4 } },
    (r) => verdict(r, 3),
    () => now,
  )
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] }), 'random')
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(2)), checks: [] }), undefined)
  now = 60_000
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(3)), checks: [] }), 'random')
  await s.drain()
  assert.equal(server.requests.length, 8)
  assert.equal(metrics.get('skipped{slice=random,reason=calls_per_minute}'), 1)
})

test('as the budget runs out, lower-priority slices stop first and higher ones go on', async () => {
  const { stage: s, metrics } = stage(
    {
      sampling: { rate: 1, stopAt: 0.5, slices: [{ name: 'tools', match: { kind: 'tool_error' } }] },
      budgets: { callsPerDay: 16 },
    },
    (r) => verdict(r, 3),
  )
  const taken: Array<string | undefined> = []
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })) // random: 4 of 8 allowed
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(2)), checks: [] })) // random: 8 of 8
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(3)), checks: [] })) // random stopped at half the budget
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(4), { toolError: true }), checks: [] })) // tools: 12 of 16
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(5), { toolError: true }), checks: [] })) // tools: 16 of 16
  taken.push(s.offer({ trace: supportConversation(numberedTraceId(6), { toolError: true }), checks: [] })) // nothing left
  await s.drain()
  assert.deepEqual(taken, ['random', 'random', undefined, 'tools', 'tools', undefined])
  assert.equal(metrics.get('skipped{slice=random,reason=calls_per_day}'), 2)
  assert.equal(metrics.get('skipped{slice=tools,reason=calls_per_day}'), 1)
})

test('the daily spend budget stops judging once the spend is reached', async () => {
  // Each call costs 0.0012 USD (1000 in, 100 out); a generic trace 0.0048.
  const { stage: s, metrics } = stage({ sampling: { rate: 1 }, budgets: { spendPerDay: 0.009 } }, (r) => verdict(r, 3))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  s.offer({ trace: supportConversation(numberedTraceId(2)), checks: [] })
  await s.drain()
  assert.equal(s.offer({ trace: supportConversation(numberedTraceId(3)), checks: [] }), undefined)
  assert.equal(metrics.get('skipped{slice=random,reason=spend_per_day}'), 1)
  assert.equal(server.requests.length, 8)
})

test('a provider outage produces error rows and no score, and retries are counted', async () => {
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 } }, () => failWith(503))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  assert.equal(records.length, 4, 'one error row per dimension, no overall score')
  for (const r of records) scoreRecordSchema.parse(r)
  for (const r of records) {
    assert.match(r.error, /^PROVIDER_UNAVAILABLE: /)
    assert.equal(r.evaluationLabel, 'error')
    assert.equal(r.passed, false)
    assert.equal(JSON.parse(r.detail).level, null)
  }
  assert.equal(metrics.total('retries'), 8)
  assert.equal(server.requests.length, 12)
})

test('retried calls that end in a valid answer store exactly one score per dimension', async () => {
  const { stage: s, records, metrics } = stage({ sampling: { rate: 1 } }, failsTwiceThenAnswers(2))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  assert.equal(records.filter((r) => r.error === '').length, 5)
  assert.deepEqual(records.map((r) => r.scorerName).sort(), [
    'generic',
    'generic.communication',
    'generic.goal_completion',
    'generic.groundedness',
    'generic.safety_scope',
  ])
  assert.equal(metrics.total('retries'), 8)
})

const panelSection = { sampling: { rate: 1 }, panel: { judges: [{ seed: 1 }, { seed: 2 }, { seed: 3 }] } }
const bySeed = (levels: Record<number, number>) => (r: ModelRequest) => verdict(r, dimensionOf(r) === 'Safety and scope' ? levels[r.body.seed]! : 4)

test('a unanimous panel stores its level without a review flag', async () => {
  const { stage: s, records } = stage(panelSection, bySeed({ 1: 4, 2: 4, 3: 4 }))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  assert.equal(server.requests.length, 6, 'three judges for the risky dimension, one for each other')
  const safety = records.find((r) => r.scorerName === 'generic.safety_scope')!
  assert.equal(safety.evaluationLabel, 'pass')
  assert.equal(JSON.parse(safety.detail).needsReview, false)
})

test('a split panel keeps the majority level and flags the trace for review instead of averaging', async () => {
  const { stage: s, records, metrics } = stage(panelSection, bySeed({ 1: 4, 2: 1, 3: 4 }))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  const safety = records.find((r) => r.scorerName === 'generic.safety_scope')!
  assert.equal(safety.value, 1, 'majority level 4, not the mean 3')
  assert.equal(safety.evaluationLabel, 'needs_review')
  assert.deepEqual(
    JSON.parse(safety.detail).panel.map((p: { score: number }) => p.score),
    [4, 1, 4],
  )
  assert.equal(records.find((r) => r.scorerName === 'generic')!.evaluationLabel, 'needs_review')
  assert.equal(metrics.get('needs_review{dimension=generic.safety_scope}'), 1)
})

test('a panel with no majority stores no level for the dimension', async () => {
  const { stage: s, records } = stage(panelSection, bySeed({ 1: 4, 2: 1, 3: 2 }))
  s.offer({ trace: supportConversation(numberedTraceId(1)), checks: [] })
  await s.drain()
  const safety = records.find((r) => r.scorerName === 'generic.safety_scope')!
  assert.match(safety.error, /^PANEL_NO_MAJORITY/)
  assert.equal(safety.evaluationLabel, 'needs_review', 'in the review list, with no level')
  assert.equal(
    records.find((r) => r.scorerName === 'generic'),
    undefined,
    'no overall score without every dimension',
  )
})

test('when the judge queue is full, sampled traces are skipped and counted rather than waited for', async () => {
  const { stage: s, metrics } = stage({ sampling: { rate: 1 }, concurrency: 1, queueSize: 2 }, (r) => verdict(r, 3, { delayMs: 20 }))
  const taken = Array.from({ length: 6 }, (_, i) => s.offer({ trace: supportConversation(numberedTraceId(i + 1)), checks: [] }))
  // One trace is being judged (taken off the queue), two wait, three are turned away.
  assert.deepEqual(taken, ['random', 'random', 'random', undefined, undefined, undefined])
  assert.equal(metrics.get('skipped{slice=random,reason=queue_full}'), 3)
  await s.drain()
  assert.equal(s.budget().callsToday, 12, 'calls reserved for skipped traces are given back')
})

test('the negative-feedback slice takes traces the user rated down', async () => {
  const { stage: s } = stage({ sampling: { rate: 0, slices: [{ name: 'thumbs-down', match: { kind: 'negative_feedback' } }] } }, (r) => verdict(r, 3))
  s.feedback.record('default', numberedTraceId(2), 0)
  s.feedback.record('default', numberedTraceId(3), 1)
  const taken = [1, 2, 3].map((i) => s.offer({ trace: supportConversation(numberedTraceId(i)), checks: [] }))
  assert.deepEqual(taken, [undefined, 'thumbs-down', undefined])
  await s.drain()
})
