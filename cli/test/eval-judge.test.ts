import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { dimensionOf, failWith, say, startFakeOpenAI, verdict, type FakeOpenAI, type ModelRequest, type Step } from '@sieve/testkit'
import { refundExample, writeDataset } from './support/golden-example.js'

/**
 * `sieve eval` with the judge: the real CLI, the real agent traced with the OpenTelemetry SDK, and
 * the judge reached over HTTP at a local OpenAI-compatible server whose verdicts the test scripts.
 * The agent is the fixed one throughout: its checks pass, so whatever fails comes from the judge.
 */
const root = fileURLToPath(new URL('../../', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sieve-eval-judge-'))
const AGENT = 'testkit/agents/refund-agent.ts'
const JUDGE_MODEL = 'gpt-4o-2024-08-06'
let judge: FakeOpenAI

/** Level per dimension name of the generic rubric (4 levels, 1..4), 4 when not given. */
let levels: Record<string, number> = {}
const scripted = (request: ModelRequest): Step => verdict(request, levels[dimensionOf(request)] ?? 4)

before(async () => {
  judge = await startFakeOpenAI({ script: scripted })
  // Quick retries, and a price so the cost is known: 1000 in / 100 out tokens a call (the fixture's usage).
  writeFileSync(
    join(dir, 'sieve.yaml'),
    ['judge:', '  maxRetries: 1', '  backoff: { baseMs: 1, maxMs: 5 }', `  prices: { "${JUDGE_MODEL}": { input: 2.5, output: 10 } }`, ''].join('\n'),
  )
})
after(async () => {
  await judge?.close()
  rmSync(dir, { recursive: true, force: true })
})

const example = (id: string, bucket: string) =>
  refundExample(id, bucket, [
    { name: 'prohibited_tools', kind: 'deterministic', value: 0, passed: false },
    { name: 'generic', kind: 'judge', value: 0.2, passed: false },
  ])
const dataset = (name: string, ...examples: object[]) => writeDataset(dir, name, ...examples)

interface EvalRun {
  code: number
  stdout: string
  stderr: string
  report: any
  summary: string
}

async function sieveEval(name: string, args: string[], env: Record<string, string> = {}): Promise<EvalRun> {
  const out = join(dir, `${name}.json`)
  const summary = join(dir, `${name}.md`)
  const child = spawn(
    process.execPath,
    ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', 'eval', '--agent', AGENT, '--out', out, '--summary', summary, ...args],
    {
      cwd: root,
      env: { ...process.env, SIEVE_CONFIG_FILE: join(dir, 'sieve.yaml'), JUDGE_BASE_URL: judge.baseURL, JUDGE_API_KEY: 'test', JUDGE_MODEL, ...env },
    },
  )
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  const read = (path: string) => {
    try {
      return readFileSync(path, 'utf8')
    } catch {
      return ''
    }
  }
  const json = read(out)
  return { code, stdout, stderr, report: json ? JSON.parse(json) : undefined, summary: read(summary) }
}

const known = dataset('known.jsonl', example('ex_00000000000000a1', 'known-failure'))

test('a run the judge scores low fails the gate (exit 1) where the checks alone pass (exit 0)', async () => {
  levels = { 'Goal completion': 1, Groundedness: 2, 'Safety and scope': 1, Communication: 2 }
  const checksOnly = await sieveEval('low-nojudge', ['--dataset', known, '--repeats', '1', '--no-judge'])
  assert.equal(checksOnly.code, 0, checksOnly.stdout + checksOnly.stderr)
  assert.equal(checksOnly.report.judge, undefined)

  const before = judge.requests.length
  // No --judge: a configured judge is on by default.
  const judged = await sieveEval('low', ['--dataset', known, '--repeats', '2'])
  assert.equal(judged.code, 1, judged.stdout + judged.stderr)
  assert.equal(judge.requests.length - before, 8, 'all four dimensions of the generic rubric, for each of the two runs')
  assert.match(judged.stdout, /known failure ex_00000000000000a1 fails again \(pass rate 0\)/)
  const e = judged.report.examples[0]
  assert.deepEqual(
    e.runs.map((r: any) => [r.checks[0].passed, r.judge.passed]),
    [
      [true, false],
      [true, false],
    ],
  )
  // Levels 1, 2, 1, 2 of 1..4, weighted 0.35 / 0.3 / 0.2 / 0.15.
  const weighted = (0.3 * (1 / 3) + 0.15 * (1 / 3)) / 1
  assert.equal(e.judge.mean, Math.round(weighted * 1000) / 1000)
  assert.equal(e.judge.passRate, 0)
  assert.equal(e.judge.rubric, 'generic@1.0.0')
  assert.deepEqual(e.judge.dimensions, { goal_completion: 0, groundedness: 0.333, safety_scope: 0, communication: 0.333 })
  assert.equal(e.runs[0].judge.dimensions.groundedness.level, 2)
  // Eight calls at 1000 input and 100 output tokens, $2.5 / $10 per million.
  assert.deepEqual(
    [judged.report.judge.model, judged.report.judge.calls, judged.report.judge.inputTokens, judged.report.judge.outputTokens, judged.report.judge.costUsd],
    [JUDGE_MODEL, 8, 8000, 800, 0.028],
  )
  assert.match(
    judged.summary,
    /Judge gpt-4o-2024-08-06: mean score \*\*0\.15\*\*, pass rate \*\*0\*\* over 2 judged run\(s\)\. 8 call\(s\), 8000 input \/ 800 output tokens, \$0\.0280\./,
  )
  assert.match(judged.summary, /\| ex_00000000000000a1 \| known-failure \| fail \| 1 \| 0 \| 0\.15 \/ 0 \| generic \(judge\) \|/)
})

test('a dimension below its --judge-floor fails the run even when the weighted score passes', async () => {
  levels = { 'Goal completion': 3 }
  const passing = await sieveEval('floor-none', ['--dataset', known, '--repeats', '1'])
  assert.equal(passing.code, 0, passing.stdout + passing.stderr)
  assert.equal(passing.report.examples[0].runs[0].judge.passed, true)
  const floored = await sieveEval('floor', [
    '--dataset',
    known,
    '--repeats',
    '1',
    '--judge-floor',
    'goal_completion=0.9',
    '--judge-floor',
    'generic.communication=0.5',
  ])
  assert.equal(floored.code, 1, floored.stdout + floored.stderr)
  assert.deepEqual(floored.report.examples[0].runs[0].judge.belowFloor, ['goal_completion'])
  assert.match(floored.summary, /generic\.goal_completion \(floor\)/)
  const unknown = await sieveEval('floor-unknown', ['--dataset', known, '--repeats', '1', '--judge-floor', 'charm=0.5'])
  assert.equal(unknown.code, 2)
  assert.match(unknown.stderr, /no loaded rubric has a dimension 'charm'/)
})

test('judge errors (invalid answers after the retry, provider down) are reported as errors, never as low scores', async () => {
  levels = {}
  const start = judge.requests.length
  // Run 1: four valid verdicts. Run 2: each dimension answers prose twice. Run 3: HTTP 503 on every attempt.
  judge.setScript((request) => {
    const n = request.index - start
    if (n < 4) return scripted(request)
    if (n < 12) return say('I would give it a 2.')
    return failWith(503)
  })
  try {
    const run = await sieveEval('errors', ['--dataset', known, '--repeats', '3'])
    assert.equal(run.code, 0, run.stdout + run.stderr)
    const e = run.report.examples[0]
    assert.deepEqual(
      e.runs.map((r: any) => r.passed),
      [true, true, true],
    )
    assert.equal(e.passRate, 1)
    assert.match(e.runs[1].judge.error, /^INVALID_ANSWER: /)
    assert.match(e.runs[2].judge.error, /^PROVIDER_UNAVAILABLE: /)
    assert.equal(e.runs[2].judge.score, undefined)
    assert.deepEqual([e.judge.judged, e.judge.errors, e.judge.mean, e.judge.passRate], [1, 2, 1, 1])
    assert.equal(run.report.judge.errors, 2)
    assert.equal(run.report.verdict, 'warn')
    assert.match(run.report.warnings.join('\n'), /judge errors on 2 run\(s\), not counted as low scores \(first: INVALID_ANSWER/)
    assert.match(run.summary, /2 run\(s\) with judge errors \(not counted as low scores\)/)
  } finally {
    judge.setScript(scripted)
  }
})

test('exits 2 when the judge cannot be reached at all: endpoint down, or refusing every request', async () => {
  const down = await startFakeOpenAI({ script: [] })
  await down.close()
  const unreachable = await sieveEval('down', ['--dataset', known, '--repeats', '2'], { JUDGE_BASE_URL: down.baseURL })
  assert.equal(unreachable.code, 2, unreachable.stdout)
  assert.match(unreachable.stderr, /the judge cannot be reached: PROVIDER_UNAVAILABLE: .*run with --no-judge/)
  const refusing = await startFakeOpenAI({ script: () => failWith(401, { message: 'invalid api key' }) })
  try {
    const rejected = await sieveEval('rejected', ['--dataset', known, '--repeats', '2'], { JUDGE_BASE_URL: refusing.baseURL })
    assert.equal(rejected.code, 2, rejected.stdout)
    assert.match(rejected.stderr, /the judge cannot be reached: REQUEST_REJECTED: .*HTTP 401/)
  } finally {
    await refusing.close()
  }
  const noJudge = await sieveEval('no-judge-config', ['--dataset', known, '--repeats', '1', '--judge'], { JUDGE_MODEL: '' })
  assert.equal(noJudge.code, 2)
  assert.match(noJudge.stderr, /--judge needs a configured judge/)
})

test("the baseline keeps every run's judge scores: a drop past the fail threshold, distinguishable from noise, is a regression (exit 1); another judge model is not compared", async () => {
  const typical = dataset('typical.jsonl', example('ex_00000000000000c1', 'typical'))
  const baseline = join(dir, 'baseline.json')
  levels = {}
  const first = await sieveEval('base-1', ['--dataset', typical, '--repeats', '2', '--baseline', baseline, '--update-baseline'])
  assert.equal(first.code, 0, first.stdout + first.stderr)
  const stored = JSON.parse(readFileSync(baseline, 'utf8'))
  assert.deepEqual(
    [stored.stamps.judgeModel, stored.stamps.judgePromptVersion, stored.stamps.scorerVersion],
    [JUDGE_MODEL, first.report.stamps.judge.promptVersion, first.report.stamps.scorerVersion],
  )
  assert.deepEqual(
    stored.items.ex_00000000000000c1.map((r: any) => r.judge),
    Array(2).fill({
      rubric: 'generic',
      version: '1.0.0',
      score: 1,
      dimensions: { goal_completion: 1, groundedness: 1, safety_scope: 1, communication: 1 },
    }),
  )

  // Goal completion 4 → 3 in every run: still above the passing threshold (weighted 0.883), so the pass rate holds;
  // the judge gives the same levels every run, so the drop is no noise.
  levels = { 'Goal completion': 3 }
  const second = await sieveEval('base-2', ['--dataset', typical, '--repeats', '2', '--baseline', baseline])
  assert.equal(second.code, 1, second.stdout + second.stderr)
  assert.equal(second.report.examples[0].passRate, 1)
  assert.match(
    second.stdout,
    /generic\.goal_completion 1 → 0\.667 \(Δ −0\.333, 95% interval −0\.333 to −0\.333, one-sided p 0\): a drop past the fail threshold 0\.1, distinguishable from noise at the 0\.05 level/,
  )
  assert.match(second.stdout, /generic 1 → 0\.883 \(Δ −0\.117, .*\): a drop past the fail threshold 0\.1/)
  const metric = second.report.metrics.find((m: any) => m.name === 'generic.goal_completion')
  assert.deepEqual([metric.baseline.mean, metric.now.mean, metric.delta.value, metric.verdict], [1, 0.667, -0.333, 'fail'])
  assert.match(second.summary, /\| generic\.goal_completion \| graded \| 1 \| 0\.667 \| −0\.333 ± 0 \| 0 \| fail \|/)

  const tolerant = await sieveEval('base-3', [
    '--dataset',
    typical,
    '--repeats',
    '2',
    '--baseline',
    baseline,
    '--fail-threshold',
    '0.4',
    '--warn-threshold',
    '0.4',
  ])
  assert.equal(tolerant.code, 0, tolerant.stdout + tolerant.stderr)

  // Another judge model: its scores are not compared, and the report says why; the checks still are.
  const otherJudge = await sieveEval('base-4', ['--dataset', typical, '--repeats', '2', '--baseline', baseline], { JUDGE_MODEL: 'gpt-4o-2024-11-20' })
  assert.equal(otherJudge.code, 0, otherJudge.stdout + otherJudge.stderr)
  assert.equal(otherJudge.report.baseline.compared, true)
  assert.match(
    otherJudge.report.warnings.join('\n'),
    /generic, generic\.communication, .* not compared with the baseline: the baseline was judged by gpt-4o-2024-08-06, this run judged by gpt-4o-2024-11-20/,
  )
  assert.equal(otherJudge.report.metrics.find((m: any) => m.name === 'generic.goal_completion').verdict, undefined)
  assert.equal(otherJudge.report.metrics.find((m: any) => m.name === 'pass rate').verdict, 'pass')

  // A checks-only run pairs with the judged baseline on the checks alone.
  const checksOnly = await sieveEval('base-5', ['--dataset', typical, '--repeats', '2', '--baseline', baseline, '--no-judge'])
  assert.equal(checksOnly.code, 0)
  assert.equal(checksOnly.report.baseline.compared, true)
  assert.deepEqual(
    checksOnly.report.metrics.map((m: any) => m.name),
    ['pass rate', 'prohibited_tools'],
  )
})
