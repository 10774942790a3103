import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { dimensionOf, startFakeOpenAI, verdict, type FakeOpenAI, type ModelRequest } from '@sieve/testkit'
import { refundExample, writeDataset } from './support/golden-example.js'
import { runSieve } from './support/run-sieve.js'

/*
 * The gate on noisy agents, end to end: the real CLI, testkit's refund agent traced with the
 * OpenTelemetry SDK, and the judge at a local OpenAI-compatible server. The agent's noise is
 * reproducible: a run counter in a file decides which runs skip the escalation (a required_tools
 * failure, graded), which refund (prohibited_tools, zero tolerance) and, through the ticket number
 * in its answer, which get a lower Communication level from the judge. Four examples, five repeats:
 * twenty runs an invocation. An unchanged agent's figures then wobble example by example and from
 * one invocation to the next, as a real agent's do.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-eval-noise-'))
const JUDGE_MODEL = 'gpt-4o-2024-08-06'
const node = `"${process.execPath}" --conditions=sieve-source --import tsx testkit/agents/refund-agent.ts`
let judge: FakeOpenAI

/** Communication one level lower on the runs whose ticket number leaves 1 divided by 3. */
const levels = (request: ModelRequest) => {
  const ticket = Number(/ticket T-(\d+)/.exec(request.body.messages[1].content)?.[1] ?? 0)
  return verdict(request, dimensionOf(request) === 'Communication' && ticket % 3 === 1 ? 3 : 4)
}

before(async () => {
  judge = await startFakeOpenAI({ script: levels })
  writeFileSync(join(dir, 'sieve.yaml'), ['judge:', '  maxRetries: 1', '  backoff: { baseMs: 1, maxMs: 5 }', ''].join('\n'))
})
after(async () => {
  await judge?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The refund case, expecting the agent to escalate (graded) and never refund (zero tolerance). */
const dataset = writeDataset(
  dir,
  'golden.jsonl',
  ...['e1', 'e2', 'e3', 'e4'].map((id, i) => {
    const e = refundExample(`ex_00000000000000${id}`, 'typical')
    return {
      ...e,
      input: { messages: [{ role: 'user', content: `${e.input.messages[0]!.content} (case ${i + 1})` }] },
      expected: { ...e.expected, checks: { ...e.expected.checks, required_tools: { tools: [{ name: 'escalate_to_human' }] } } },
    }
  }),
)

async function sieveEval(name: string, agent: string, args: string[], judged = true) {
  const out = join(dir, `${name}.json`)
  const run = await runSieve(
    [
      'eval',
      '--dataset',
      dataset,
      '--agent',
      agent,
      '--repeats',
      '5',
      '--out',
      out,
      '--summary',
      join(dir, `${name}.md`),
      ...(judged ? [] : ['--no-judge']),
      ...args,
    ],
    {
      ...process.env,
      SIEVE_CONFIG_FILE: join(dir, 'sieve.yaml'),
      JUDGE_BASE_URL: judge.baseURL,
      JUDGE_API_KEY: 'test',
      JUDGE_MODEL,
    },
  )
  return { ...run, report: JSON.parse(readFileSync(out, 'utf8')), summary: readFileSync(join(dir, `${name}.md`), 'utf8') }
}

const passRates = (report: any): number[] => report.examples.map((e: { passRate: number }) => e.passRate)
const metric = (report: any, name: string) => report.metrics.find((m: { name: string }) => m.name === name)

test('an unchanged agent whose graded figures are noisy passes twice in a row against its baseline, where the old per-example rule failed', async () => {
  const agent = `${node} --counter=${join(dir, 'noisy')} --skip-escalation-every=3`
  const baseline = join(dir, 'noisy-baseline.json')
  const recorded = await sieveEval('noisy-0', agent, ['--baseline', baseline, '--update-baseline'])
  assert.equal(recorded.code, 0, recorded.stdout + recorded.stderr)
  for (const name of ['noisy-1', 'noisy-2']) {
    const rerun = await sieveEval(name, agent, ['--baseline', baseline])
    assert.equal(rerun.code, 0, rerun.stdout + rerun.stderr)
    assert.equal(rerun.report.verdict, 'pass', [...rerun.report.reasons, ...rerun.report.warnings].join('\n'))
    // The noise is real: examples passed less often than in the baseline, which the old rule called a regression.
    const lower = passRates(rerun.report).filter((rate, i) => rate < passRates(recorded.report)[i]!)
    assert.ok(lower.length > 0, `${name}: ${passRates(rerun.report)} against ${passRates(recorded.report)}`)
    assert.notDeepEqual(metric(rerun.report, 'generic.communication').delta.value, undefined)
    for (const name of ['pass rate', 'required_tools', 'generic', 'generic.communication']) assert.equal(metric(rerun.report, name).verdict, 'pass', name)
    assert.match(rerun.summary, /\| prohibited_tools \| zero tolerance \| 0 of 20 failed \| 0 of 20 failed \(≤ 13\.9%\) \| {2}\| {2}\| pass \|/)
    assert.match(rerun.summary, /\| pass rate \| graded \| 0\.65 \| 0\.\d+ \| [+−]?[\d.]+ ± [\d.]+ \| [\d.]+ \| pass \|/)
  }
})

test('an agent that calls a prohibited tool in some runs fails every time, whatever its baseline says', async () => {
  const agent = `${node} --counter=${join(dir, 'refunds')} --refund-every=4`
  const baseline = join(dir, 'refunds-baseline.json')
  for (const [name, args] of [
    ['refunds-0', ['--update-baseline']],
    ['refunds-1', []],
    ['refunds-2', []],
  ] as const) {
    const run = await sieveEval(name, agent, ['--baseline', baseline, ...args], false)
    assert.equal(run.code, 1, `${name}: ${run.stdout}${run.stderr}`)
    assert.match(run.stdout, /prohibited_tools \(zero tolerance\): 5 of 20 runs failed \(25%\); the true rate may be up to 45\.6%, in ex_00000000000000e\d/)
    assert.deepEqual([metric(run.report, 'prohibited_tools').failed, metric(run.report, 'prohibited_tools').runs], [5, 20])
  }
})

test('a broken agent fails: on its prohibited tool, and on a pass rate dropped beyond noise when it only stops escalating', async () => {
  const baseline = join(dir, 'noisy-baseline.json')
  const broken = await sieveEval('broken', `${node} --broken`, ['--baseline', baseline], false)
  assert.equal(broken.code, 1, broken.stdout + broken.stderr)
  assert.match(broken.stdout, /prohibited_tools \(zero tolerance\): 20 of 20 runs failed/)
  const silent = await sieveEval('silent', `${node} --counter=${join(dir, 'silent')} --skip-escalation-every=1`, ['--baseline', baseline], false)
  assert.equal(silent.code, 1, silent.stdout + silent.stderr)
  assert.equal(metric(silent.report, 'prohibited_tools').verdict, 'pass')
  assert.match(
    silent.stdout,
    /pass rate 0\.65 → 0 \(Δ −0\.65, 95% interval −\d\.\d+ to −\d\.\d+, one-sided p 0\): a drop past the fail threshold 0\.1, distinguishable from noise at the 0\.05 level/,
  )
  assert.equal(metric(silent.report, 'required_tools').verdict, 'fail')
})

test('a small drop within noise warns, saying how many repeats would settle it', async () => {
  const baseline = join(dir, 'steady-baseline.json')
  const steady = await sieveEval(
    'steady',
    `${node} --counter=${join(dir, 'steady')} --skip-escalation-every=4`,
    ['--baseline', baseline, '--update-baseline'],
    false,
  )
  assert.equal(steady.code, 0, steady.stdout + steady.stderr)
  const slipped = await sieveEval('slipped', `${node} --counter=${join(dir, 'slipped')} --skip-escalation-every=3`, ['--baseline', baseline], false)
  assert.equal(slipped.code, 0, slipped.stdout + slipped.stderr)
  assert.equal(slipped.report.verdict, 'warn')
  const passRate = metric(slipped.report, 'pass rate')
  assert.deepEqual([passRate.baseline.mean, passRate.now.mean, passRate.delta.value, passRate.verdict], [0.75, 0.65, -0.1, 'warn'])
  assert.ok(passRate.delta.p > 0.05, 'not distinguishable from noise')
  assert.match(
    slipped.stdout,
    /pass rate 0\.75 → 0\.65 \(Δ −0\.1, .*\): a drop past the warn threshold not yet distinguishable from noise at the 0\.05 level; about \d+ repeats per example, here and in a baseline recorded again with as many, would settle it/,
  )
  assert.match(slipped.summary, /\| pass rate \| graded \| 0\.75 \| 0\.65 \| −0\.1 ± [\d.]+ \| [\d.]+ \| warn \(≈ \d+ repeats both sides to settle\) \|/)
})
