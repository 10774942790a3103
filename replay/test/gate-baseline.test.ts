import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { DEFAULT_CHECKS } from '@sieve/scoring'
import { goldenExample } from '@sieve/testkit'
import { BASELINE_VERSION, baselineOf, BaselineError, readBaseline, writeBaseline, type BaselineStamps, type RecordedBaseline } from '../src/eval/baseline.js'
import { gatePolicySchema } from '../src/eval/gate-policy.js'
import { gateStatistics } from '../src/eval/gate-statistics.js'
import type { GradedResult } from '../src/eval/metric-verdicts.js'
import type { RunOutcome } from '../src/eval/run-outcome.js'
import { runGate } from '../src/index.js'

/*
 * Baselines: every run's outcome with the stamps it was measured with, paired with a later run on
 * the examples both share; what was measured otherwise is refused, with the reason; files written
 * before per-run outcomes were kept are still read.
 */

const ROOT = new URL('../../', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'sieve-gate-baseline-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const policy = gatePolicySchema.parse({ repeats: 3 })
const stamps: BaselineStamps = {
  datasetVersion: 'd1',
  agentVersion: 'v12',
  promptVersion: 'p3',
  model: 'm-2025-01-01',
  judgeModel: 'j-2025-01-01',
  judgePromptVersion: '2',
  scorerVersion: '1.4.0',
  checks: { prohibited_tools: '1', required_tools: '1' },
}

const outcome = (passed: boolean, communication = 1, version = '1.0.0'): RunOutcome => ({
  status: 'scored',
  passed,
  checks: { prohibited_tools: true, required_tools: passed },
  judge: { rubric: 'generic', version, score: passed ? 0.9 : 0.5, dimensions: { communication } },
})
const runs = (ids: string[], make: () => RunOutcome[]) => new Map(ids.map((id) => [id, make()]))
const recorded = (items: Map<string, RunOutcome[]>, s: Partial<BaselineStamps> = {}): RecordedBaseline => ({
  version: BASELINE_VERSION,
  createdAt: '2026-01-01T00:00:00.000Z',
  repeats: 3,
  stamps: { ...stamps, ...s },
  items: Object.fromEntries(items),
})
const graded = (r: { metrics: readonly { name: string }[] }, name: string) => r.metrics.find((m) => m.name === name) as GradedResult

test('a baseline pairs on the examples both runs share, lists the others, and says what changed since', () => {
  const base = recorded(runs(['a', 'b', 'gone'], () => [outcome(true), outcome(true), outcome(false)]))
  const now = runs(['a', 'b', 'new'], () => [outcome(true), outcome(false), outcome(false)])
  const stats = gateStatistics(now, { ...stamps, agentVersion: 'v13', datasetVersion: 'd2' }, policy, { path: 'b.json', file: base }, 'dataset')
  assert.deepEqual([stats.baseline!.onlyNow, stats.baseline!.onlyBaseline], [['new'], ['gone']])
  assert.equal(stats.baseline!.note, 'baseline of 2026-01-01T00:00:00.000Z; since then agent v12 → v13, dataset version d1 → d2')
  const passRate = graded(stats, 'pass rate')
  assert.deepEqual([passRate.baseline!.examples, passRate.now.examples, passRate.baseline!.mean, passRate.delta!.value], [2, 2, 0.667, -0.333])
})

test('judge metrics are refused against a baseline of another judge model, judge prompt or scorer version, with the reason; checks are still compared', () => {
  const items = runs(['a', 'b'], () => [outcome(true), outcome(true), outcome(true)])
  for (const [changed, reason] of [
    [{ judgeModel: 'j-2024-06-01' }, 'the baseline was judged by j-2024-06-01, this run judged by j-2025-01-01'],
    [{ judgePromptVersion: '1' }, 'the baseline was with judge prompt version 1, this run with judge prompt version 2'],
    [{ scorerVersion: '1.3.0' }, 'the baseline was scored by scorer 1.3.0, this run scored by scorer 1.4.0'],
  ] as const) {
    const stats = gateStatistics(items, stamps, policy, { path: 'b.json', file: recorded(items, changed) }, 'dataset')
    assert.deepEqual(stats.baseline!.refused, [{ metrics: ['generic', 'generic.communication'], reason }])
    assert.equal(graded(stats, 'generic.communication').verdict, undefined)
    assert.equal(graded(stats, 'generic.communication').note, `not compared: ${reason}`)
    assert.equal(graded(stats, 'required_tools').verdict, 'pass')
    assert.ok(stats.warnings.includes(`generic, generic.communication not compared with the baseline: ${reason}`), stats.warnings.join('\n'))
  }
  const rubric = gateStatistics(
    runs(['a'], () => [outcome(true, 1, '2.0.0'), outcome(true, 1, '2.0.0')]),
    stamps,
    policy,
    { path: 'b.json', file: recorded(items) },
    'dataset',
  )
  assert.deepEqual(
    rubric.baseline!.refused.map((r) => r.reason),
    ['rubric version 1.0.0 in the baseline, 2.0.0 now', 'rubric version 1.0.0 in the baseline, 2.0.0 now'],
  )
  const check = gateStatistics(
    items,
    stamps,
    policy,
    { path: 'b.json', file: recorded(items, { checks: { ...stamps.checks, required_tools: '0' } }) },
    'dataset',
  )
  assert.deepEqual(check.baseline!.refused, [{ metrics: ['required_tools'], reason: 'check required_tools version 0 in the baseline, 1 now' }])
  const users = gateStatistics(items, { ...stamps, simulatorModel: 'sim-2025-01-01' }, policy, { path: 'b.json', file: recorded(items) }, 'scenarios')
  assert.match(users.baseline!.refused[0]!.reason, /^the baseline's users were simulated by their scripts, this run's by sim-2025-01-01$/)
  assert.equal(users.metrics.filter((m) => m.kind === 'graded' && m.verdict !== undefined).length, 0, 'nothing graded is compared')
})

test('zero-tolerance items fail on any failing run whatever the baseline says, with the observed rate and its upper bound; --graded makes one statistical', () => {
  const refunding = runs(['a', 'b'], () => [
    outcome(true),
    { ...outcome(true), passed: false, checks: { prohibited_tools: false, required_tools: true } },
    outcome(true),
  ])
  const stats = gateStatistics(refunding, stamps, policy, { path: 'b.json', file: recorded(refunding) }, 'dataset')
  const zero = stats.metrics.find((m) => m.name === 'prohibited_tools')!
  assert.deepEqual(zero, {
    id: 'zero-tolerance:prohibited_tools',
    name: 'prohibited_tools',
    kind: 'zero-tolerance',
    source: 'check',
    failed: 2,
    runs: 6,
    rate: 0.333,
    upper95: 0.729,
    failing: ['a', 'b'],
    baseline: { failed: 2, runs: 6 },
    verdict: 'fail',
  })
  assert.deepEqual(stats.reasons, ['prohibited_tools (zero tolerance): 2 of 6 runs failed (33.3%); the true rate may be up to 72.9%, in a, b'])
  const lenient = gateStatistics(refunding, stamps, { ...policy, graded: ['prohibited_tools'] }, { path: 'b.json', file: recorded(refunding) }, 'dataset')
  assert.deepEqual([graded(lenient, 'prohibited_tools').kind, graded(lenient, 'prohibited_tools').verdict, lenient.reasons], ['graded', 'pass', []])
  // A scorecard's gates allow no failing run either.
  const carded = runs(['a'], () => [
    { ...outcome(true), scorecard: { value: 0.9, gates: ['customer-support.policy_adherence'], failedGates: [] } },
    { ...outcome(false), scorecard: { value: 0.4, gates: ['customer-support.policy_adherence'], failedGates: ['customer-support.policy_adherence'] } },
  ])
  const gate = gateStatistics(carded, stamps, policy, undefined, 'dataset').metrics.find((m) => m.name === 'customer-support.policy_adherence')!
  assert.deepEqual([gate.kind, gate.source, gate.verdict], ['zero-tolerance', 'gate', 'fail'])
})

test('a baseline file is validated, written with every run and its stamps, and read back the same', () => {
  const path = join(dir, 'baseline.json')
  const items = runs(['a'], () => [outcome(true), outcome(false)])
  writeBaseline(path, stamps, 2, items)
  const file = readBaseline(path)!
  assert.ok('version' in file && file.version === 2)
  assert.deepEqual(baselineOf(path, file, stamps)!.runs, items)
  assert.equal(readBaseline(join(dir, 'none.json')), undefined)
  writeFileSync(join(dir, 'broken.json'), '{"version": 2, "items": {}}')
  assert.throws(
    () => readBaseline(join(dir, 'broken.json')),
    (err: Error) => err instanceof BaselineError && /broken\.json: /.test(err.message),
  )
})

test('a baseline written before per-run outcomes were kept is read: compared on its per-example figures, and the report says so', async () => {
  const dataset = join(dir, 'legacy.jsonl')
  const example = (id: string) =>
    goldenExample(id, {
      input: { messages: [{ role: 'user', content: `Refund order A-1001, it arrived 45 days ago (${id}).` }] },
      expected: { checks: { prohibited_tools: { tools: ['process_refund'] } } },
    })
  writeFileSync(dataset, `${['ex_00000000000000f1', 'ex_00000000000000f2', 'ex_00000000000000f3'].map((id) => JSON.stringify(example(id))).join('\n')}\n`)
  const path = join(dir, 'legacy-baseline.json')
  const figures = { mean: 1, passRate: 1 }
  writeFileSync(
    path,
    JSON.stringify({
      entries: {
        'old|gpt-4o-mini-2024-07-18': {
          datasetVersion: 'old',
          model: 'gpt-4o-mini-2024-07-18',
          createdAt: '2025-12-01T00:00:00.000Z',
          overall: figures,
          examples: { ex_00000000000000f1: figures, ex_00000000000000f2: figures, ex_00000000000000f3: { mean: 1, passRate: 0.5 } },
        },
      },
    }),
  )
  const report = await runGate({
    dataset,
    agent: 'testkit/agents/refund-agent.ts',
    repeats: 2,
    baseline: path,
    updateBaseline: false,
    timeoutMs: 60_000,
    checks: DEFAULT_CHECKS,
    cwd: ROOT,
  })
  assert.equal(report.exitCode, 0, [...report.reasons, ...report.warnings].join('\n'))
  assert.equal(report.baseline!.perRun, false)
  assert.match(
    report.baseline!.note,
    /^baseline of 2025-12-01T00:00:00\.000Z; since then dataset version old → [0-9a-f]{16}; written before per-run outcomes were kept: compared on per-example figures only/,
  )
  const passRate = graded(report, 'pass rate')
  assert.deepEqual([passRate.baseline!.mean, passRate.now.mean, passRate.delta!.value, passRate.verdict], [0.833, 1, 0.167, 'pass'])
  assert.equal(JSON.parse(readFileSync(path, 'utf8')).entries !== undefined, true, 'not rewritten without --update-baseline')
})
