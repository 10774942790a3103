import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { ConfigError } from '@sieve/core'
import { scenarios } from '@sieve/testkit/scenarios'
import { resolveChecksConfig, scoreCard, scoreTrace, traceScoreRecords } from '../src/index.js'

/*
 * A scorecard turns a trace's scores into one verdict an agent's owners can gate on: weighted
 * items, and hard gates that fail the trace whatever the weighted total. With the judge's items:
 * judge/test/scorecard-judge.test.ts.
 */

const card = (items: Record<string, unknown>, passAt = 0.7) =>
  resolveChecksConfig(undefined, [], { agents: { support: { passAt, items } } }).scorecards.cardFor('support', '')!

test('a hard gate fails the trace although the weighted total passes: the rubric passes at 0.85 with policy adherence at its lowest level', () => {
  const c = card({ 'customer-support': { weight: 1 }, 'customer-support.policy_adherence': { weight: 0, gate: true } })
  const judged = [
    { name: 'customer-support', value: 0.85, passed: true },
    { name: 'customer-support.policy_adherence', value: 0, passed: false },
  ]
  const r = scoreCard(c, judged)!
  assert.equal(r.value, 0.85)
  assert.equal(r.passed, false)
  assert.deepEqual(r.failedGates, ['customer-support.policy_adherence'])
  // The same scores under a card without the gate pass.
  assert.equal(scoreCard(card({ 'customer-support': {} }), judged)!.passed, true)
})

test("items are weighted over the scores present; a missing or errored item is neither pass nor fail; min overrides an item's own pass", () => {
  const c = card(
    { prohibited_tools: { gate: true, weight: 2 }, latency_budget: { weight: 1, min: 0.9 }, 'customer-support.policy_adherence': { gate: true } },
    0.8,
  )
  const r = scoreCard(c, [
    { name: 'prohibited_tools', value: 1, passed: true },
    { name: 'latency_budget', value: 0.8, passed: true },
  ])!
  assert.equal(r.value, (2 * 1 + 1 * 0.8) / 3)
  assert.equal(r.passed, true, 'the judge gate has no score yet: it does not fail the trace')
  assert.deepEqual(r.missing, ['customer-support.policy_adherence'])
  assert.equal(r.items.find((i) => i.name === 'latency_budget')!.state, 'fail', 'below its min although the check passed')
  const errored = scoreCard(c, [
    { name: 'prohibited_tools', value: 0, passed: false, error: 'check prohibited_tools failed to run' },
    { name: 'latency_budget', value: 1, passed: true },
  ])!
  assert.deepEqual([errored.passed, errored.failedGates, errored.items[0]!.state], [true, [], 'error'], 'an error is never a failed gate')
  assert.equal(scoreCard(c, []), undefined, 'nothing scored: no verdict')
})

test('the scorecards section is validated with paths: unknown checks, empty cards, bad weights', () => {
  const problems = (section: unknown) => {
    try {
      resolveChecksConfig(undefined, [], section)
      return []
    } catch (err) {
      return (err as ConfigError).problems
    }
  }
  assert.match(
    problems({ agents: { support: { passAt: 0.8, items: { prohibited_tool: { gate: true } } } } }).join('\n'),
    /scorecards\.agents\.support\.items\.prohibited_tool: neither a check/,
  )
  assert.match(problems({ default: { passAt: 0.8, items: {} } }).join('\n'), /scorecards\.default\.items: a scorecard needs at least one item/)
  assert.match(problems({ default: { passAt: 1.5, items: { tool_errors: { weight: -1 } } } }).join('\n'), /scorecards\.default\.passAt/)
  assert.match(problems({ default: { passAt: 0.5, items: { tool_errors: { weight: 0 } } } }).join('\n'), /every item has weight 0 and no gate/)
})

test('the scorer stores one scorecard row per trace: a failed gate named in its detail, by agent name then service name', () => {
  const config = resolveChecksConfig({ agents: { support: { prohibited_tools: { tools: ['process_refund'] } } } }, [], {
    default: { passAt: 0.5, items: { tool_errors: {} } },
    agents: { support: { passAt: 0.5, items: { prohibited_tools: { gate: true, weight: 1 }, tool_errors: { weight: 9 }, invented_urls: { weight: 9 } } } },
  })
  const score = scoreTrace(scenarios.refundOutsidePolicy().trace(), config)
  const row = traceScoreRecords(score).find((r) => r.kind === 'scorecard')!
  assert.equal(row.scorerName, 'scorecard')
  assert.ok(row.value > 0.9, `the weighted total passes (${row.value})`)
  assert.equal(row.passed, false)
  assert.equal(row.evaluationLabel, 'fail')
  const detail = JSON.parse(row.detail)
  assert.equal(detail.card, 'support')
  assert.deepEqual(detail.failedGates, ['prohibited_tools'])
  assert.match(row.evaluationExplanation, /gate failed: prohibited_tools/)
  const unconfigured = scoreTrace(scenarios.refundOutsidePolicy().trace(), resolveChecksConfig(undefined))
  assert.equal(
    traceScoreRecords(unconfigured).some((r) => r.kind === 'scorecard'),
    false,
    'no scorecards section, no scorecard rows',
  )
})
