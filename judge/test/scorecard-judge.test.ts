// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { loadConfig, migrate } from '@sieve/core'
import { clickhouseScoreSink, judgeItemProblems, loadChecksConfig, resolveChecksConfig, scoreTrace, storedScoresSeen } from '@sieve/scoring'
import { Scorer } from '@sieve/scorer'
import { dimensionOf, startFakeOpenAI, verdict, type FakeOpenAI } from '@sieve/testkit'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { scenarios } from '@sieve/testkit/scenarios'
import { createJudge } from '../src/index.js'
import { loadRubrics } from '@sieve/judging'

/* A scorecard's judge items: named against the loaded rubrics, and written by the judge (scoring/test/scorecard.test.ts has the rest). */

test('scorecard items naming a rubric or a rubric dimension are checked against the loaded rubrics', () => {
  const config = resolveChecksConfig(undefined, [], {
    default: { passAt: 0.5, items: { 'customer-support.politeness': {}, 'no-such-rubric': {}, 'customer-support.empathy': {} } },
  })
  assert.deepEqual(
    judgeItemProblems(config.scorecards, loadRubrics()).map((p) => p.split(':')[0]),
    ['scorecards.default.items.customer-support.politeness', 'scorecards.default.items.no-such-rubric'],
  )
})

let dir: string
let store: TestStorage
let storage: Storage
let judgeServer: FakeOpenAI

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-scorecard-'))
  store = await openTestStorage({ path: join(dir, 'clickhouse') })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
  // Every dimension at its top level but policy adherence at its lowest: the rubric's weighted score is 0.85.
  judgeServer = await startFakeOpenAI({ script: (r) => verdict(r, /Policy adherence/.test(dimensionOf(r)) ? 1 : /Efficiency/.test(dimensionOf(r)) ? 4 : 5) })
})
after(async () => {
  await judgeServer.close()
  await store.close()
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
  const queue = new InProcessQueue({ gates: ['scorer'] })
  const scorer = await Scorer.start({ queue, sink, checks, onScored: judge.onScored, options: { quietPeriodMs: 0, tickMs: 10 } })
  const trace = scenarios.refundHandledWell().trace()
  await queue.publish(trace.spans)
  await scorer.stop({ flush: true })
  const readCard = async () =>
    await (
      await storage.query({
        query: `SELECT value, passed, detail FROM scores FINAL WHERE kind = 'scorecard' AND trace_id = {id:String}`,
        query_params: { id: trace.traceId },
        format: 'JSONEachRow',
      })
    ).json<{ value: number; passed: number; detail: string }>()
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
  const rescored = scoreTrace(trace, checks, await storedScoresSeen(storage, trace.projectId, trace.traceId, 'judge'))
  assert.deepEqual([rescored.scorecard!.passed, rescored.scorecard!.failedGates], [false, ['customer-support.policy_adherence']])
})
