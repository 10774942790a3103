import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { refundExample, writeDataset } from './support/golden-example.js'
import { runSieve } from './support/run-sieve.js'

const dir = mkdtempSync(join(tmpdir(), 'sieve-eval-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const AGENT = 'testkit/agents/refund-agent.ts'
const node = `"${process.execPath}" --import tsx ${AGENT}`

const example = refundExample
const dataset = (name: string, ...examples: object[]) => writeDataset(dir, name, ...examples)

const sieveEval = (args: string[]) => runSieve(['eval', ...args])

const known = dataset('known.jsonl', example('ex_00000000000000a1', 'known-failure'))

test('passes (exit 0) when the fixed agent no longer repeats the known failure, and writes the JSON artifact and Markdown summary', async () => {
  const out = join(dir, 'fixed.json')
  const summary = join(dir, 'fixed.md')
  const { code, stdout } = await sieveEval(['--dataset', known, '--agent', AGENT, '--repeats', '2', '--out', out, '--summary', summary])
  assert.equal(code, 0, stdout)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.equal(report.verdict, 'pass')
  assert.deepEqual(
    report.examples.map((e: { passRate: number; runs: unknown[] }) => [e.passRate, e.runs.length]),
    [[1, 2]],
  )
  assert.equal(report.model, 'gpt-4o-mini-2024-07-18')
  assert.match(readFileSync(summary, 'utf8'), /## Sieve regression gate: PASS/)
})

test('without --out the report goes under the data directory, never the current one, and its path is printed', async () => {
  const dataDir = join(dir, 'data')
  const { code, stdout } = await runSieve(['eval', '--dataset', known, '--agent', AGENT, '--repeats', '1'], { ...process.env, SIEVE_DATA_DIR: dataDir })
  assert.equal(code, 0, stdout)
  const out = join(dataDir, 'reports', 'sieve-eval.json')
  assert.match(stdout, new RegExp(`^Report: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, summary: .*sieve-eval\\.md$`, 'm'))
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).verdict, 'pass')
  assert.match(readFileSync(join(dataDir, 'reports', 'sieve-eval.md'), 'utf8'), /## Sieve regression gate: PASS/)
  assert.equal(existsSync(new URL('../../sieve-eval.json', import.meta.url)), false, 'nothing in the current directory')
})

test('fails (exit 1) when the broken agent repeats a known failure, naming it', async () => {
  const out = join(dir, 'broken.json')
  const { code, stdout } = await sieveEval([
    '--dataset',
    known,
    '--agent',
    `${node} --broken`,
    '--repeats',
    '2',
    '--out',
    out,
    '--summary',
    join(dir, 'broken.md'),
  ])
  assert.equal(code, 1, stdout)
  assert.match(stdout, /known failure ex_00000000000000a1 fails again \(pass rate 0\)/)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.equal(report.examples[0].status, 'fail')
  assert.match(report.examples[0].runs[0].checks[0].message, /process_refund/)
})

test('a prohibited tool called in some runs fails the gate (zero tolerance); the example is still told apart as unstable, not a capability gap', async () => {
  const typical = dataset('typical.jsonl', example('ex_00000000000000b1', 'typical'))
  const out = join(dir, 'flaky.json')
  const { code, stdout } = await sieveEval([
    '--dataset',
    typical,
    '--agent',
    `${node} --flaky=${join(dir, 'counter')}`,
    '--repeats',
    '2',
    '--out',
    out,
    '--summary',
    join(dir, 'flaky.md'),
  ])
  assert.equal(code, 1, stdout)
  assert.match(stdout, /prohibited_tools \(zero tolerance\): 1 of 2 runs failed \(50%\); the true rate may be up to 97\.5%, in ex_00000000000000b1/)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.equal(report.verdict, 'fail')
  assert.equal(report.examples[0].status, 'unstable')
  assert.equal(report.examples[0].passRate, 0.5)
  assert.deepEqual(
    report.metrics.find((m: { name: string }) => m.name === 'prohibited_tools'),
    {
      id: 'zero-tolerance:prohibited_tools',
      name: 'prohibited_tools',
      kind: 'zero-tolerance',
      source: 'check',
      failed: 1,
      runs: 2,
      rate: 0.5,
      upper95: 0.975,
      failing: ['ex_00000000000000b1'],
      verdict: 'fail',
    },
  )
})

test("the baseline keeps every run with its stamps; the broken agent against it fails on its prohibited tool, whatever the pass rate's noise", async () => {
  const typical = dataset('typical2.jsonl', example('ex_00000000000000c1', 'typical'))
  const baseline = join(dir, 'baseline.json')
  const first = await sieveEval([
    '--dataset',
    typical,
    '--agent',
    AGENT,
    '--repeats',
    '1',
    '--baseline',
    baseline,
    '--update-baseline',
    '--out',
    join(dir, 'b1.json'),
    '--summary',
    join(dir, 'b1.md'),
  ])
  assert.equal(first.code, 0, first.stdout)
  const stored = JSON.parse(readFileSync(baseline, 'utf8'))
  assert.equal(stored.version, 2)
  assert.deepEqual(stored.items.ex_00000000000000c1, [{ status: 'scored', passed: true, checks: { prohibited_tools: true } }])
  assert.deepEqual([stored.stamps.agentVersion, stored.stamps.model, stored.repeats], ['v12', 'gpt-4o-mini-2024-07-18', 1])
  const second = await sieveEval([
    '--dataset',
    typical,
    '--agent',
    `${node} --broken`,
    '--repeats',
    '1',
    '--baseline',
    baseline,
    '--out',
    join(dir, 'b2.json'),
    '--summary',
    join(dir, 'b2.md'),
  ])
  assert.equal(second.code, 1, second.stdout)
  assert.match(second.stdout, /prohibited_tools \(zero tolerance\): 1 of 1 runs failed, in ex_00000000000000c1/)
  // One run on each side: the pass rate's drop is real-looking but cannot be told from noise.
  assert.match(
    second.stdout,
    /pass rate 1 → 0 \(Δ −1, 95% interval −1 to \+0\.386, one-sided p 0\.079\): a drop past the fail threshold not yet distinguishable from noise/,
  )
  assert.match(second.stdout, /baseline .*baseline\.json: baseline of .*; since then agent v12 → v13/)
})

test('--fail-below fails on the mean score, --warn-below only warns (prohibited_tools made --graded)', async () => {
  const typical = dataset('typical3.jsonl', example('ex_00000000000000d1', 'typical'))
  const warn = await sieveEval([
    '--dataset',
    typical,
    '--agent',
    `${node} --broken`,
    '--repeats',
    '1',
    '--graded',
    'prohibited_tools',
    '--warn-below',
    '0.9',
    '--out',
    join(dir, 'w.json'),
    '--summary',
    join(dir, 'w.md'),
  ])
  assert.equal(warn.code, 0, warn.stdout)
  assert.match(warn.stdout, /mean score 0 is below --warn-below 0.9/)
  const fail = await sieveEval([
    '--dataset',
    typical,
    '--agent',
    `${node} --broken`,
    '--repeats',
    '1',
    '--graded',
    'prohibited_tools',
    '--fail-below',
    '0.5',
    '--out',
    join(dir, 'f.json'),
    '--summary',
    join(dir, 'f.md'),
  ])
  assert.equal(fail.code, 1)
})

test('exits 2 on configuration errors: missing dataset, invalid dataset, an agent that cannot run', async () => {
  assert.equal((await sieveEval(['--dataset', join(dir, 'nope.jsonl'), '--agent', AGENT])).code, 2)
  const invalid = join(dir, 'invalid.jsonl')
  writeFileSync(invalid, '{"version": 1}\n')
  const bad = await sieveEval(['--dataset', invalid, '--agent', AGENT, '--out', join(dir, 'x.json'), '--summary', join(dir, 'x.md')])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /invalid line/)
  const missing = await sieveEval(['--dataset', known, '--agent', 'no-such-agent-command-xyz', '--out', join(dir, 'y.json'), '--summary', join(dir, 'y.md')])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /cannot run the agent/)
})

test('an agent that cannot run is exit 2 with the lines of its stderr that say why: not executable, a missing file, a crash at import', async () => {
  const notExecutable = join(dir, 'not-executable.sh')
  writeFileSync(notExecutable, `exec ${node}\n`)
  const crashing = join(dir, 'crashing-agent.ts')
  writeFileSync(crashing, "const url = process.env.ORDER_SERVICE_URL\nif (!url) throw new Error('ORDER_SERVICE_URL is not set')\n")
  const cases: [string, RegExp][] = [
    [`${notExecutable} --broken`, /exit code 126: .*Permission denied/],
    [join(dir, 'no-such-agent.ts'), /exit code 1: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module '.*no-such-agent\.ts'/],
    [crashing, /exit code 1: Error: ORDER_SERVICE_URL is not set$/m],
  ]
  for (const [agent, why] of cases) {
    const r = await sieveEval(['--dataset', known, '--agent', agent, '--repeats', '1', '--out', join(dir, 'cannot.json'), '--summary', join(dir, 'cannot.md')])
    assert.equal(r.code, 2, `${agent}: ${r.stdout}${r.stderr}`)
    assert.match(r.stderr, /cannot run the agent/)
    assert.match(r.stderr, why)
    assert.doesNotMatch(r.stderr, /Node\.js v\d/)
  }
})

test('--now reaches the agent as SIEVE_EVAL_NOW and stamps the report; a typo in an expected check is exit 2 before any run', async () => {
  const out = join(dir, 'stamped.json')
  const received = join(dir, 'agent-now.txt')
  const script = join(dir, 'agent-with-clock.sh')
  writeFileSync(script, `echo "$SIEVE_EVAL_NOW" >> ${received}\nexec ${node}\n`)
  const agent = `sh ${script}`
  const { code, stdout, stderr } = await sieveEval([
    '--dataset',
    known,
    '--agent',
    agent,
    '--repeats',
    '1',
    '--now',
    '2026-03-01T12:00:00Z',
    '--out',
    out,
    '--summary',
    join(dir, 'stamped.md'),
  ])
  assert.equal(code, 0, stdout + stderr)
  assert.equal(readFileSync(received, 'utf8').trim(), '2026-03-01T12:00:00Z')
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).stamps.agentNow, '2026-03-01T12:00:00Z')

  const typo = dataset('typo.jsonl', {
    ...example('ex_00000000000000b9', 'known-failure'),
    expected: { checks: { prohibited_tool: { tools: ['process_refund'] } } },
  })
  const bad = await sieveEval(['--dataset', typo, '--agent', AGENT, '--repeats', '1', '--out', join(dir, 'typo.json'), '--summary', join(dir, 'typo.md')])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /no check named prohibited_tool/)
  // `sieve dataset validate` reads the example the same way.
  const validated = await runSieve(['dataset', 'validate', typo])
  assert.equal(validated.code, 1)
  assert.match(validated.stderr, /typo\.jsonl:1: expected\.checks\.prohibited_tool: no check named prohibited_tool/)
  for (const [flag, value] of [
    ['--max-cost', '-1'],
    ['--now', 'yesterday'],
    ['--max-errored-share', '2'],
  ]) {
    const r = await sieveEval(['--dataset', known, '--agent', AGENT, flag!, value!])
    assert.equal(r.code, 2, `${flag} ${value}`)
  }
  // The gate's policy: each bad value names its flag, the rule and the value given.
  for (const [args, message] of [
    [['--repeats', 'lots'], /--repeats must be a whole number from 1 to 100, or auto \(got 'lots'\)/],
    [['--fail-threshold', '1.5'], /--fail-threshold must be at most 1 \(got '1\.5'\)/],
    [['--fail-threshold', '0.1', '--warn-threshold', '0.2'], /--warn-threshold must not be above the fail threshold \(0\.1\) \(got '0\.2'\)/],
    [['--max-repeats', '5'], /--max-repeats goes with --repeats auto/],
    [['--zero-tolerance', 'prohibited_tool'], /--zero-tolerance prohibited_tool: no check of that name \(known: .*prohibited_tools/],
  ] as const) {
    const r = await sieveEval(['--dataset', known, '--agent', AGENT, ...args, '--out', join(dir, 'policy.json'), '--summary', join(dir, 'policy.md')])
    assert.equal(r.code, 2, args.join(' '))
    assert.match(r.stderr, message)
  }
})
