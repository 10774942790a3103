import assert from 'node:assert/strict'
import { test } from 'node:test'
import { hashUnit, selectingSlices } from '../src/sampling.js'
import { judgeSectionSchema, sliceMatches, sliceMatchSchema, type SliceFacts } from '@sieve/judging'
import { supportConversation, numberedTraceId } from '@sieve/testkit'

const facts = (id: string, over: Partial<SliceFacts> = {}): SliceFacts => ({
  trace: supportConversation(id),
  checks: [],
  userTurns: 1,
  tokens: 370,
  userTraceIndex: undefined,
  lowestFeedback: undefined,
  ...over,
})

test('the random sample holds its rate over 10,000 traces and re-runs pick the same traces', () => {
  const sampling = judgeSectionSchema.parse({ sampling: { rate: 0.05 } }).sampling
  const ids = Array.from({ length: 10_000 }, (_, i) => numberedTraceId(0x9e3779b9 * (i + 1)))
  const picked = ids.filter((id) => selectingSlices(sampling, facts(id)).length > 0)
  // 500 expected; binomial sd ≈ 21.8, the tolerance is about 4.6 sd.
  assert.ok(picked.length >= 400 && picked.length <= 600, `picked ${picked.length} of 10,000 at 5%`)
  const again = ids.filter((id) => selectingSlices(sampling, facts(id)).length > 0)
  assert.deepEqual(again, picked)
})

test('a slice rate holds over 10,000 matching traces, independently of the random sample', () => {
  const sampling = judgeSectionSchema.parse({ sampling: { rate: 0.1, slices: [{ name: 'tool-errors', match: { kind: 'tool_error' }, rate: 0.25 }] } }).sampling
  const base = supportConversation(numberedTraceId(1), { toolError: true })
  let slice = 0
  let both = 0
  for (let i = 0; i < 10_000; i++) {
    const id = numberedTraceId(i * 7919 + 13)
    const picks = selectingSlices(sampling, facts(id, { trace: { ...base, traceId: id } }))
    if (picks.includes('tool-errors')) slice++
    if (picks.includes('tool-errors') && picks.includes('random')) both++
  }
  assert.ok(slice >= 2330 && slice <= 2670, `tool-errors picked ${slice} at 25%`)
  // Independent hashes: about 2.5% are in both.
  assert.ok(both >= 170 && both <= 330, `${both} in both`)
})

test('the hash is the same for upper- and lower-case ids and differs between slices', () => {
  assert.equal(hashUnit('ABCDEF'.padStart(32, '0'), 'x'), hashUnit('abcdef'.padStart(32, '0'), 'x'))
  assert.notEqual(hashUnit(numberedTraceId(5), 'a'), hashUnit(numberedTraceId(5), 'b'))
})

test('each slice selects exactly the traces it describes', () => {
  const m = (raw: unknown) => sliceMatchSchema.parse(raw)
  const cases: Array<[string, unknown, SliceFacts, boolean]> = [
    [
      'failed any check',
      { kind: 'failed_check' },
      facts(numberedTraceId(1), {
        checks: [
          { name: 'a', passed: true },
          { name: 'b', passed: false },
        ],
      }),
      true,
    ],
    ['passed every check', { kind: 'failed_check' }, facts(numberedTraceId(1), { checks: [{ name: 'a', passed: true }] }), false],
    ['failed a check not listed', { kind: 'failed_check', checks: ['a'] }, facts(numberedTraceId(1), { checks: [{ name: 'b', passed: false }] }), false],
    ['tool error', { kind: 'tool_error' }, facts(numberedTraceId(1), { trace: supportConversation(numberedTraceId(1), { toolError: true }) }), true],
    ['no tool error', { kind: 'tool_error' }, facts(numberedTraceId(1)), false],
    ['long by turns', { kind: 'long_conversation', minTurns: 5 }, facts(numberedTraceId(1), { userTurns: 5 }), true],
    ['short by turns', { kind: 'long_conversation', minTurns: 5 }, facts(numberedTraceId(1), { userTurns: 4 }), false],
    ['long by tokens', { kind: 'long_conversation', minTokens: 300 }, facts(numberedTraceId(1)), true],
    ['third trace of a user, first 3', { kind: 'new_user', firstTraces: 3 }, facts(numberedTraceId(1), { userTraceIndex: 2 }), true],
    ['fourth trace of a user, first 3', { kind: 'new_user', firstTraces: 3 }, facts(numberedTraceId(1), { userTraceIndex: 3 }), false],
    ['no user', { kind: 'new_user', firstTraces: 3 }, facts(numberedTraceId(1)), false],
    ['thumbs down', { kind: 'negative_feedback' }, facts(numberedTraceId(1), { lowestFeedback: 0 }), true],
    ['thumbs up', { kind: 'negative_feedback' }, facts(numberedTraceId(1), { lowestFeedback: 1 }), false],
    [
      'canary version',
      { kind: 'canary', agentVersion: '2.1.0' },
      facts(numberedTraceId(1), { trace: supportConversation(numberedTraceId(1), { agentVersion: '2.1.0' }) }),
      true,
    ],
    [
      'fleet version',
      { kind: 'canary', agentVersion: '2.1.0' },
      facts(numberedTraceId(1), { trace: supportConversation(numberedTraceId(1), { agentVersion: '2.0.0' }) }),
      false,
    ],
    [
      'attribute equal',
      { kind: 'attributes', equals: { 'app.plan': 'enterprise' } },
      facts(numberedTraceId(1), { trace: supportConversation(numberedTraceId(1), { attributes: { 'app.plan': 'enterprise' } }) }),
      true,
    ],
    [
      'attribute differs',
      { kind: 'attributes', equals: { 'app.plan': 'enterprise' } },
      facts(numberedTraceId(1), { trace: supportConversation(numberedTraceId(1), { attributes: { 'app.plan': 'free' } }) }),
      false,
    ],
  ]
  for (const [what, raw, f, expected] of cases) assert.equal(sliceMatches(m(raw), f), expected, what)
})

test('slices are listed in priority order with the random sample last', () => {
  const sampling = judgeSectionSchema.parse({
    sampling: {
      rate: 1,
      slices: [
        { name: 'failed', match: { kind: 'failed_check' } },
        { name: 'tools', match: { kind: 'tool_error' } },
        { name: 'vip', match: { kind: 'attributes', equals: { vip: true } } },
      ],
    },
  }).sampling
  const f = facts(numberedTraceId(3), { trace: supportConversation(numberedTraceId(3), { toolError: true }), checks: [{ name: 'x', passed: false }] })
  assert.deepEqual(selectingSlices(sampling, f), ['failed', 'tools', 'random'])
})
