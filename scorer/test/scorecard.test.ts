import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { ClickHouseClient } from '@clickhouse/client'
import { InProcessQueue } from '@sieve/collector'
import { ConfigError, createStorage, loadConfig, migrate } from '@sieve/core'
import { dimensionOf, startFakeOpenAI, verdict, type FakeOpenAI } from '@sieve/testkit'
import { scenarios } from '@sieve/testkit/scenarios'
import {
  clickhouseScoreSink, createJudge, judgeItemProblems, loadChecksConfig, loadRubrics, resolveChecksConfig, scoreCard, Scorer, scoreTrace,
  traceScoreRecords,
} from '../src/index.js'

/*
 * A scorecard turns a trace's scores into one verdict an agent's owners can gate on: weighted
 * items, and hard gates that fail the trace whatever the weighted total.
 */

const card = (items: Record<string, unknown>, passAt = 0.7) => resolveChecksConfig(undefined, [], { agents: { support: { passAt, items } } }).scorecards.cardFor('support', '')!

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

test('items are weighted over the scores present; a missing or errored item is neither pass nor fail; min overrides an item\'s own pass', () => {
  const c = card({ prohibited_tools: { gate: true, weight: 2 }, latency_budget: { weight: 1, min: 0.9 }, 'customer-support.policy_adherence': { gate: true } }, 0.8)
  const r = scoreCard(c, [
    { name: 'prohibited_tools', value: 1, passed: true },
    { name: 'latency_budget', value: 0.8, passed: true },
  ])!
  assert.equal(r.value, (2 * 1 + 1 * 0.8) / 3)
  assert.equal(r.passed, true, 'the judge gate has no score yet: it does not fail the trace')
  assert.deepEqual(r.missing, ['customer-support.policy_adherence'])
  assert.equal(r.items.find((i) => i.name === 'latency_budget')!.state, 'fail', 'below its min although the check passed')
  const errored = scoreCard(c, [{ name: 'prohibited_tools', value: 0, passed: false, error: 'check prohibited_tools failed to run' }, { name: 'latency_budget', value: 1, passed: true }])!
  assert.deepEqual([errored.passed, errored.failedGates, errored.items[0]!.state], [true, [], 'error'], 'an error is never a failed gate')
  assert.equal(scoreCard(c, []), undefined, 'nothing scored: no verdict')
})

test('the scorecards section is validated with paths: unknown checks, empty cards, bad weights; judge items against the loaded rubrics', () => {
  const problems = (section: unknown) => {
    try {
      resolveChecksConfig(undefined, [], section)
      return []
    } catch (err) {
      return (err as ConfigError).problems
    }
  }
  assert.match(problems({ agents: { support: { passAt: 0.8, items: { prohibited_tool: { gate: true } } } } }).join('\n'), /scorecards\.agents\.support\.items\.prohibited_tool: neither a check/)
  assert.match(problems({ default: { passAt: 0.8, items: {} } }).join('\n'), /scorecards\.default\.items: a scorecard needs at least one item/)
  assert.match(problems({ default: { passAt: 1.5, items: { tool_errors: { weight: -1 } } } }).join('\n'), /scorecards\.default\.passAt/)
  assert.match(problems({ default: { passAt: 0.5, items: { tool_errors: { weight: 0 } } } }).join('\n'), /every item has weight 0 and no gate/)
  const config = resolveChecksConfig(undefined, [], { default: { passAt: 0.5, items: { 'customer-support.politeness': {}, 'no-such-rubric': {}, 'customer-support.empathy': {} } } })
  assert.deepEqual(judgeItemProblems(config.scorecards, loadRubrics()).map((p) => p.split(':')[0]), ['scorecards.default.items.customer-support.politeness', 'scorecards.default.items.no-such-rubric'])
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
  assert.equal(traceScoreRecords(unconfigured).some((r) => r.kind === 'scorecard'), false, 'no scorecards section, no scorecard rows')
})

let dir: string
let storage: ClickHouseClient
let judgeServer: FakeOpenAI

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-scorecard-'))
  storage = await createStorage({ kind: 'embedded', path: join(dir, 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  // Every dimension at its top level but policy adherence at its lowest: the rubric's weighted score is 0.85.
  judgeServer = await startFakeOpenAI({ script: (r) => verdict(r, /Policy adherence/.test(dimensionOf(r)) ? 1 : /Efficiency/.test(dimensionOf(r)) ? 4 : 5) })
})
after(async () => {
  await judgeServer.close()
  await storage.close()
})

test('the judge writes the scorecard again with its items: the stored verdict fails on the judge gate, and `sieve score` keeps them', async () => {
  const file = join(dir, 'sieve.yaml')
  writeFileSync(
    file,
    [
      'judge:',
      '  sampling: { rate: 1 }',
      '  rubrics: { default: customer-support }',
      'scorecards:',
      '  agents:',
      '    support:',
      '      passAt: 0.7',
      '      items:',
      '        tool_errors: { weight: 1 }',
      '        customer-support: { weight: 2 }',
      '        customer-support.policy_adherence: { weight: 0, gate: true }',
    ].join('\n'),
  )
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: judgeServer.baseURL, JUDGE_MODEL: 'judge-2025-01-01' })
  const checks = await loadChecksConfig(config.sections)
  const sink = clickhouseScoreSink(storage)
  const judge = createJudge(config, sink, undefined, undefined, { scorecards: checks.scorecards })!
  const queue = new InProcessQueue()
  const scorer = await Scorer.start({ queue, sink, checks, onScored: judge.onScored, gatePublish: true, options: { quietPeriodMs: 0, tickMs: 10 } })
  const trace = scenarios.refundHandledWell().trace()
  await queue.publish(trace.spans)
  await scorer.stop({ flush: true })
  const readCard = async () =>
    (await (await storage.query({ query: `SELECT value, passed, detail FROM scores FINAL WHERE kind = 'scorecard' AND trace_id = {id:String}`, query_params: { id: trace.traceId }, format: 'JSONEachRow' })).json<{ value: number; passed: number; detail: string }>())
  await judge.drain()
  await judge.stop()
  await queue.close()

  const rows = await readCard()
  assert.equal(rows.length, 1, 'one scorecard row per trace: the judge replaced the one written on the checks')
  const detail = JSON.parse(rows[0]!.detail)
  assert.deepEqual(detail.failedGates, ['customer-support.policy_adherence'])
  assert.deepEqual(detail.missing, [])
  assert.equal(Number(rows[0]!.passed), 0)
  assert.ok(Math.abs(rows[0]!.value - (1 + 2 * 0.85) / 3) < 1e-9, `weighted over the check and the rubric (${rows[0]!.value})`)

  // Re-scoring the checks alone (what `sieve score` does) keeps the judge's items from storage.
  const { storedScoresSeen } = await import('../src/index.js')
  const rescored = scoreTrace(trace, checks, await storedScoresSeen(storage, trace.projectId, trace.traceId, 'judge'))
  assert.deepEqual([rescored.scorecard!.passed, rescored.scorecard!.failedGates], [false, ['customer-support.policy_adherence']])
})
