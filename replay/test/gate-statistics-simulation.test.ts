import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededRandom } from '@sieve/testkit'
import { repeatRounds } from '../src/eval/auto-repeats.js'
import { BASELINE_VERSION, type BaselineStamps, type RecordedBaseline } from '../src/eval/baseline.js'
import { AUTO_START_REPEATS, gatePolicySchema } from '../src/eval/gate-policy.js'
import { gateStatistics } from '../src/eval/gate-statistics.js'
import type { GradedResult } from '../src/eval/metric-verdicts.js'
import type { RunOutcome } from '../src/eval/run-outcome.js'

/*
 * The gate's statistics driven by a seeded simulator of noisy agents, through the code `sieve eval`
 * runs (run outcomes → metrics → baseline pairing → verdicts, and --repeats auto's rounds), without
 * hundreds of real runs. A CI user records a baseline with `--repeats auto --update-baseline`, then
 * gates each change with `--repeats auto --baseline`. Each trial draws a new agent: 20 examples,
 * each with its own pass probability (0.3 to 1) and judge levels that wobble from run to run.
 */

const EXAMPLES = 20
const TRIALS = 1000
const policy = gatePolicySchema.parse({ repeats: 'auto' })
const stamps: BaselineStamps = {
  datasetVersion: 'd1',
  agentVersion: 'v1',
  promptVersion: 'p1',
  model: 'm-2025-01-01',
  judgeModel: 'j-2025-01-01',
  judgePromptVersion: '2',
  scorerVersion: '1.0.0',
  checks: { required_tools: '1' },
}

interface Agent {
  /** Per example: the chance a run passes (its required tool called). */
  pass: number[]
  /** Per example: the judge's usual level (0..3) on accuracy and tone. */
  levels: [number, number][]
}

/** Each test draws from a sequence of its own, so its figures do not depend on which tests ran before. */
let random = seededRandom(0)

function newAgent(): Agent {
  const draw = () => {
    const u = random.float()
    return u < 0.4 ? 1 : u < 0.8 ? 0.5 + 0.5 * random.float() : 0.3 + 0.2 * random.float()
  }
  return {
    pass: Array.from({ length: EXAMPLES }, draw),
    levels: Array.from({ length: EXAMPLES }, () => [1 + random.below(3), 1 + random.below(3)]),
  }
}

/** A judge level one step off its usual one, either way, in 30% of runs. */
const wobble = (level: number) => {
  const u = random.float()
  return Math.min(3, Math.max(0, u < 0.15 ? level - 1 : u < 0.3 ? level + 1 : level)) / 3
}

/** One run of example `i`; `drop` lowers its pass probability (a regression of that many points). */
function run(agent: Agent, i: number, drop: number): RunOutcome {
  const passed = random.float() < agent.pass[i]! - drop
  const [accuracy, tone] = agent.levels[i]!.map(wobble) as [number, number]
  return {
    status: 'scored',
    passed,
    checks: { required_tools: passed },
    judge: { rubric: 'generic', version: '1.0.0', score: (accuracy + tone) / 2, dimensions: { accuracy, tone } },
  }
}

/** One `sieve eval --repeats auto` of the agent, against the baseline when given; the baseline it would write. */
async function gate(agent: Agent, baseline: RecordedBaseline | undefined, drop = 0) {
  const items = new Map(Array.from({ length: EXAMPLES }, (_, i) => [`ex_${i}`, [] as RunOutcome[]]))
  const against = baseline ? { path: 'baseline.json', file: baseline } : undefined
  const statistics = () => gateStatistics(items, stamps, policy, against, 'dataset')
  const made = await repeatRounds(
    'auto',
    { start: AUTO_START_REPEATS, items: EXAMPLES, compared: Boolean(baseline), maxRepeats: policy.maxRepeats, failThreshold: policy.failThreshold },
    async (to) =>
      [...items.values()].forEach((runs, i) => {
        while (runs.length < to) runs.push(run(agent, i, drop))
      }),
    () => ({ results: statistics().metrics, spend: { usd: 0, runs: 0 } }),
    () => {},
  )
  const file: RecordedBaseline = {
    version: BASELINE_VERSION,
    createdAt: '2026-01-01T00:00:00.000Z',
    repeats: made.repeats,
    stamps,
    items: Object.fromEntries(items),
  }
  return { repeats: made.repeats, auto: made.auto!, stats: statistics(), file }
}

/**
 * The rule the gate had before: a regression when any example's pass rate is lower than the
 * baseline's, or its judge score lower by more than 0.1.
 */
function naiveRegression(now: RecordedBaseline, base: RecordedBaseline): boolean {
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length
  return Object.entries(now.items).some(([id, runs]) => {
    const before = base.items[id]!
    const passRate = (rs: RunOutcome[]) => mean(rs.map((r) => (r.passed ? 1 : 0)))
    const judge = (rs: RunOutcome[]) => mean(rs.map((r) => r.judge!.score!))
    return passRate(runs) < passRate(before) || judge(before) - judge(runs) > 0.1
  })
}

const share = (n: number) => `${n} of ${TRIALS} (${((n / TRIALS) * 100).toFixed(1)}%)`
const passRate = (metrics: readonly { name: string }[]) => metrics.find((m) => m.name === 'pass rate') as GradedResult

type Gated = Awaited<ReturnType<typeof gate>>

/**
 * TRIALS times: a new agent, its baseline, and a rerun of it against that baseline, its pass
 * probability lowered by `drop`; returns the repeats per example --repeats auto picked for the reruns.
 */
async function trials(drop: number, each: (rerun: Gated, baseline: Gated) => void): Promise<string> {
  const repeats: number[] = []
  for (let trial = 0; trial < TRIALS; trial++) {
    const agent = newAgent()
    const baseline = await gate(agent, undefined)
    const rerun = await gate(agent, baseline.file, drop)
    repeats.push(rerun.repeats)
    each(rerun, baseline)
  }
  return `median ${[...repeats].sort((a, b) => a - b)[Math.floor(TRIALS / 2)]}, ${Math.min(...repeats)} to ${Math.max(...repeats)}`
}

test(`an unchanged agent rerun ${TRIALS} times against its own baseline: false alarms at most 5% at the 5% level, far below the naive rule's`, async (t) => {
  random = seededRandom(20240410)
  let fails = 0
  let warns = 0
  let rejections = 0
  let naive = 0
  const repeats = await trials(0, (rerun, baseline) => {
    if (rerun.stats.reasons.length) fails++
    else if (rerun.stats.warnings.length) warns++
    // The test alone, whatever the thresholds: a drop in the pass rate told from noise at 5%.
    if (passRate(rerun.stats.metrics).delta!.p < policy.significance) rejections++
    if (naiveRegression(rerun.file, baseline.file)) naive++
  })
  t.diagnostic(
    `fail verdicts ${share(fails)}, warnings ${share(warns)}; the pass rate's one-sided test at 5% rejected "no drop" in ${share(rejections)}; the naive rule failed ${share(naive)}; repeats per example picked: ${repeats}`,
  )
  assert.ok(fails <= 0.05 * TRIALS, `false alarms: ${share(fails)}`)
  assert.ok(rejections <= 0.05 * TRIALS, `the test's size: ${share(rejections)}`)
  assert.ok(naive > 0.5 * TRIALS, `the naive rule, for comparison: ${share(naive)}`)
})

test(`a true 20-point drop in the pass rate, with the repeats --repeats auto picks, is detected at least 80% of the time over ${TRIALS} trials`, async (t) => {
  random = seededRandom(20240411)
  let detected = 0
  const stopped = new Map<string, number>()
  const repeats = await trials(0.2, (changed) => {
    if (passRate(changed.stats.metrics).verdict === 'fail') detected++
    stopped.set(changed.auto.stopped, (stopped.get(changed.auto.stopped) ?? 0) + 1)
  })
  t.diagnostic(
    `detected ${share(detected)}; repeats per example picked: ${repeats}; --repeats auto stopped: ${[...stopped].map(([why, n]) => `${why} ${share(n)}`).join(', ')}`,
  )
  assert.ok(detected >= 0.8 * TRIALS, `detected ${share(detected)}`)
})
