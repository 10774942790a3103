import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { DEFAULT_CHECKS, resolveChecksConfig, traceView } from '@sieve/scoring'
import { judgeSectionSchema, loadRubrics } from '@sieve/judging'
import { dimensionOf, goldenExample, startFakeOpenAI, verdict, writeDataset } from '@sieve/testkit'
import { GateConfigError, ReplayJudge, runGate, summaryMarkdown, type GateOptions } from '../src/index.js'

/*
 * The regression gate as CI relies on it: a dataset it cannot run is a configuration error before
 * any agent starts; crashes are errored runs, not low scores; the judge's cost has a ceiling; every
 * report says what it measured with.
 */

const ROOT = new URL('../../', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'sieve-gate-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const example = (id: string, expected: Record<string, unknown>) => goldenExample(id, { expected, bucket: 'known-failure', source: { agentVersion: 'v13' } })
const refundRule = { checks: { prohibited_tools: { tools: ['process_refund'] } }, prohibited_tools: ['process_refund'] }

const dataset = (name: string, ...examples: object[]) => writeDataset(dir, name, ...examples)

const gate = (o: Partial<GateOptions> & { dataset: string }) =>
  runGate({ agent: 'testkit/agents/refund-agent.ts', repeats: 1, updateBaseline: false, timeoutMs: 60_000, checks: DEFAULT_CHECKS, cwd: ROOT, ...o })

test('a check the dataset names that does not exist, or parameters it does not take, stop the gate before any agent runs', async () => {
  const marker = join(dir, 'agent-ran')
  const agent = `touch ${marker}`
  const typo = dataset('typo.jsonl', example('ex_0000000000000001', { checks: { prohibited_tool: { tools: ['process_refund'] } } }))
  await assert.rejects(
    gate({ dataset: typo, agent }),
    (err: Error) => err instanceof GateConfigError && /line 1: expected\.checks\.prohibited_tool: no check named prohibited_tool/.test(err.message),
  )
  const badParams = dataset('params.jsonl', example('ex_0000000000000002', { checks: { latency_budget: { maxMs: 'fast' } } }))
  await assert.rejects(
    gate({ dataset: badParams, agent }),
    (err: Error) => err instanceof GateConfigError && /expected\.checks\.latency_budget\.maxMs/.test(err.message),
  )
  assert.equal(existsSync(marker), false, 'no agent ran')
})

test('runs that crash are errored: out of the means, counted, and fail the gate only above the allowed share', async () => {
  const path = dataset('crashes.jsonl', example('ex_0000000000000003', refundRule))
  const agent = (counter: string) => `"${process.execPath}" --conditions=sieve-source --import tsx replay/test/agents/crashes-every-other-run.ts ${counter}`
  const strict = await gate({ dataset: path, agent: agent(join(dir, 'count-1')), repeats: 4 })
  const e = strict.examples[0]!
  assert.deepEqual([e.errored, e.passRate, e.mean, e.status], [2, 1, 1, 'pass'], 'two answers scored and passed; two crashes counted apart')
  assert.deepEqual([strict.overall.runs, strict.overall.errored], [4, 2])
  // A crash says nothing of the checks: an errored run lists none, and the summary names the crash alone.
  assert.deepEqual(
    e.runs.filter((r) => r.errored).map((r) => r.checks),
    [[], []],
  )
  assert.match(summaryMarkdown(strict), /^\| ex_0000000000000003 \|.*\| agent error \|$/m)
  assert.equal(strict.exitCode, 1)
  assert.match(strict.reasons.join('\n'), /2 of 4 run\(s\) errored .* more than the allowed share 0\.2/)
  const lenient = await gate({ dataset: path, agent: agent(join(dir, 'count-2')), repeats: 4, maxErroredShare: 0.5 })
  assert.equal(lenient.exitCode, 0)
  assert.match(lenient.warnings.join('\n'), /2 of 4 run\(s\) errored/)
})

test('the judge stops at the cost ceiling: runs left unjudged are reported; a judge-only example without a verdict is exit 2', async () => {
  const judge = await startFakeOpenAI({ script: (r) => verdict(r, 4) })
  try {
    const config = {
      ...judgeSectionSchema.parse({ maxRetries: 0, prices: { 'judge-2025-01-01': { input: 1000, output: 1000 } } }),
      baseUrl: judge.baseURL,
      apiKey: 'k',
      model: 'judge-2025-01-01',
    }
    const replayJudge = () => new ReplayJudge({ config, rubrics: loadRubrics() })
    const withChecks = dataset('judged.jsonl', example('ex_0000000000000004', { ...refundRule, judge: { rubric: 'customer-support' } }))
    // The first run's verdicts cost far more than $0.01; the next two are not judged.
    const capped = await gate({ dataset: withChecks, repeats: 3, judge: replayJudge(), maxCostUsd: 0.01 })
    assert.equal(capped.overall.notJudged, 2)
    assert.equal(capped.examples[0]!.runs.filter((r) => r.judge).length, 1)
    assert.match(capped.warnings.join('\n'), /cost ceiling of \$0\.01 was reached: 2 run\(s\) not judged/)
    const judgeOnly = dataset(
      'judge-only.jsonl',
      example('ex_0000000000000005', { checks: {}, judge: { rubric: 'customer-support' } }),
      example('ex_0000000000000006', { checks: {}, judge: { rubric: 'customer-support' } }),
    )
    await assert.rejects(
      gate({ dataset: judgeOnly, judge: replayJudge(), maxCostUsd: 0.01 }),
      (err: Error) => err instanceof GateConfigError && /without a verdict \(ex_0000000000000006\)/.test(err.message),
    )
  } finally {
    await judge.close()
  }
})

test('the report is stamped with what it measured: dataset version, agent and prompt version, model, checks, scorer, the fixed clock', async () => {
  const path = dataset('stamped.jsonl', example('ex_0000000000000007', refundRule))
  const report = await gate({ dataset: path, now: '2026-03-01T12:00:00.000Z' })
  const s = report.stamps
  assert.match(s.runAt, /^\d{4}-\d\d-\d\dT/)
  assert.equal(s.agentNow, '2026-03-01T12:00:00.000Z')
  assert.equal(s.datasetVersion, report.dataset.version)
  assert.deepEqual(s.agent, { command: 'testkit/agents/refund-agent.ts', version: 'v12', promptVersion: '' })
  assert.equal(s.model, 'gpt-4o-mini-2024-07-18')
  assert.deepEqual(s.checks, { prohibited_tools: DEFAULT_CHECKS.find((c) => c.name === 'prohibited_tools')!.version })
  assert.match(s.scorerVersion, /^\d+\.\d+\.\d+/)
})

test('a scorecard gate fails a run the checks and the rubric pass: policy adherence at its lowest level under a 0.85 weighted score', async () => {
  // Every dimension at its top level but policy adherence at its lowest: the rubric passes at 0.85.
  const judge = await startFakeOpenAI({ script: (r) => verdict(r, /Policy adherence/.test(dimensionOf(r)) ? 1 : /Efficiency/.test(dimensionOf(r)) ? 4 : 5) })
  try {
    const config = { ...judgeSectionSchema.parse({ maxRetries: 0 }), baseUrl: judge.baseURL, apiKey: 'k', model: 'judge-2025-01-01' }
    const path = dataset('gated.jsonl', example('ex_0000000000000008', { ...refundRule, judge: { rubric: 'customer-support' } }))
    const cards = resolveChecksConfig(undefined, [], {
      agents: {
        support: {
          passAt: 0.7,
          items: { prohibited_tools: { gate: true }, 'customer-support': { weight: 2 }, 'customer-support.policy_adherence': { weight: 0, gate: true } },
        },
      },
    }).scorecards
    const run = (scorecardFor?: GateOptions['scorecardFor']) =>
      gate({ dataset: path, judge: new ReplayJudge({ config, rubrics: loadRubrics() }), ...(scorecardFor ? { scorecardFor } : {}) })
    const ungated = await run()
    assert.equal(ungated.examples[0]!.runs[0]!.judge!.score, 0.85)
    assert.deepEqual([ungated.examples[0]!.status, ungated.exitCode], ['pass', 0], 'without a scorecard the run passes')
    const gated = await run((trace) => cards.cardFor(traceView(trace).agentName, traceView(trace).serviceName))
    const r = gated.examples[0]!.runs[0]!
    assert.deepEqual(r.scorecard, {
      card: 'support',
      value: 0.9,
      passed: false,
      failedGates: ['customer-support.policy_adherence'],
      gates: ['prohibited_tools', 'customer-support.policy_adherence'],
      missing: [],
    })
    assert.deepEqual([r.passed, gated.examples[0]!.status, gated.exitCode], [false, 'fail', 1])
    assert.match(summaryMarkdown(gated), /customer-support\.policy_adherence \(gate\)/)
  } finally {
    await judge.close()
  }
})
