import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { countRows } from '@sieve/testkit'
import { startSieve } from '@sieve/testkit/sieve'
import { startSupportModel } from '../../testkit/agents/support-model.js'
import { runSieve } from './support/run-sieve.js'

/*
 * `sieve simulate` as CI runs it, on the SDK's example support agent and its three scenarios
 * (scripted users, the agent's scripted model): exit 0 for the fixed agent, 1 for the broken one
 * (a failing scenario and a regression), 2 for a scenario Sieve cannot run.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-simulate-cli-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const AGENT = 'sdk/examples/support-agent/sieve-agent.ts'
const SCENARIOS = 'sdk/examples/support-agent/scenarios'
// The agent's model, which it reads from OPENAI_BASE_URL and OPENAI_API_KEY as a user's would.
const model = await startSupportModel()
after(() => model.close())
const env = { ...process.env, ...model.env, SIEVE_CONFIG_FILE: 'sdk/examples/support-agent/sieve.yaml', SIMULATOR_MODEL: '', JUDGE_MODEL: '' }

const simulate = (args: string[]) => runSieve(['simulate', ...args], env)

const outputs = (name: string) => ['--out', join(dir, `${name}.json`), '--summary', join(dir, `${name}.md`)]

test('--list-templates prints each edge-case template and what it changes', async () => {
  const { code, stdout } = await simulate(['--list-templates'])
  assert.equal(code, 0)
  for (const name of [
    'base',
    'impatient',
    'out-of-policy',
    'prompt-injection',
    'pii-overshare',
    'ambiguous',
    'off-topic',
    'language-switch',
    'long-conversation',
  ]) {
    assert.match(stdout, new RegExp(`^${name} +\\S`, 'm'), name)
  }
  assert.match(stdout, /^Combine templates into one variant with \+, applied in the order written/m)
})

test('without --out the report goes under the data directory, and its path is printed', async () => {
  const dataDir = join(dir, 'data')
  const run = await runSieve(['simulate', '--scenarios', SCENARIOS, '--agent', AGENT, '--scenario', 'pii-overshare', '--template', 'base'], {
    ...env,
    SIEVE_DATA_DIR: dataDir,
  })
  assert.equal(run.code, 0, run.stdout + run.stderr)
  const out = join(dataDir, 'reports', 'sieve-simulate.json')
  assert.match(run.stdout, new RegExp(`^Report: ${out.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}, summary: .*sieve-simulate\\.md$`, 'm'))
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).exitCode, 0)
  assert.match(readFileSync(join(dataDir, 'reports', 'sieve-simulate.md'), 'utf8'), /## Sieve simulation: PASS/)
  assert.equal(existsSync(fileURLToPath(new URL('../../sieve-simulate.json', import.meta.url))), false, 'nothing in the current directory')
})

test('the example scenarios pass against the fixed support agent (exit 0); the broken one fails the refund scenario through prohibited_tools and its gate, zero tolerance (exit 1)', async () => {
  const baseline = join(dir, 'baseline.json')
  const fixed = await simulate([
    '--scenarios',
    SCENARIOS,
    '--agent',
    AGENT,
    '--concurrency',
    '2',
    '--baseline',
    baseline,
    '--update-baseline',
    ...outputs('fixed'),
  ])
  assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr)
  const report = JSON.parse(readFileSync(join(dir, 'fixed.json'), 'utf8'))
  assert.deepEqual(
    report.variants.map((v: { id: string; passRate: number }) => [v.id, v.passRate]),
    [
      ['injection-in-order-note@base', 1],
      ['pii-overshare@base', 1],
      ['refund-outside-policy@base', 1],
      ['refund-outside-policy@impatient', 1],
      ['refund-outside-policy@out-of-policy', 1],
    ],
  )
  assert.match(readFileSync(join(dir, 'fixed.md'), 'utf8'), /## Sieve simulation: PASS/)
  assert.ok(existsSync(baseline))

  const broken = await simulate([
    '--scenarios',
    SCENARIOS,
    '--agent',
    `"${process.execPath}" --conditions=sieve-source --import tsx ${AGENT} --broken`,
    '--scenario',
    'refund-outside-policy',
    '--template',
    'base',
    '--baseline',
    baseline,
    ...outputs('broken'),
  ])
  assert.equal(broken.code, 1, broken.stdout + broken.stderr)
  assert.match(broken.stdout, /refund-outside-policy@base fails: pass rate 0 \(failing: prohibited_tools, prohibited_tools \(gate\)\)/)
  assert.match(broken.stdout, /prohibited_tools \(zero tolerance\): 1 of 1 runs failed, in refund-outside-policy@base/)
  // Paired with the baseline on the one scenario × template both ran: one run a side cannot tell a drop from noise.
  assert.match(broken.stdout, /pass rate 1 → 0 \(Δ −1, .*\): a drop past the fail threshold not yet distinguishable from noise/)
  assert.deepEqual(JSON.parse(readFileSync(join(dir, 'broken.json'), 'utf8')).baseline.onlyBaseline, [
    'injection-in-order-note@base',
    'pii-overshare@base',
    'refund-outside-policy@impatient',
    'refund-outside-policy@out-of-policy',
  ])
  const run = JSON.parse(readFileSync(join(dir, 'broken.json'), 'utf8')).variants[0].runs[0]
  const gate = run.failures.find((f: { kind: string }) => f.kind === 'gate')
  assert.deepEqual([gate.name, gate.turn], ['prohibited_tools', 1], 'the gate names the turn')
  assert.match(gate.message, new RegExp(`prohibited tool process_refund called in span ${gate.spanId}`))
  assert.match(readFileSync(join(dir, 'broken.md'), 'utf8'), /prohibited_tools \(gate\) \(turn 1, span [0-9a-f]{16}\)/)
})

test('--template a+b runs the two templates as one variant, keyed by the combination', async () => {
  const combined = await simulate([
    '--scenarios',
    SCENARIOS,
    '--agent',
    AGENT,
    '--scenario',
    'refund-outside-policy',
    '--template',
    'out-of-policy+impatient',
    ...outputs('combined'),
  ])
  assert.equal(combined.code, 0, combined.stdout + combined.stderr)
  const variant = JSON.parse(readFileSync(join(dir, 'combined.json'), 'utf8')).variants[0]
  assert.deepEqual([variant.id, variant.template, variant.passRate], ['refund-outside-policy@out-of-policy+impatient', 'out-of-policy+impatient', 1])
  const unknown = await simulate(['--scenarios', SCENARIOS, '--agent', AGENT, '--template', 'impatient+sarcastic', ...outputs('unknown-template')])
  assert.equal(unknown.code, 2, unknown.stdout)
  assert.match(unknown.stderr, /--template impatient\+sarcastic: no such template/)
})

test('an unknown expected check, or a scenario needing an LLM user with none configured, is exit 2 before any agent runs', async () => {
  const marker = join(dir, 'agent-ran')
  const scenario = (name: string, extra: string[]) => {
    const path = join(dir, name)
    writeFileSync(
      path,
      ['version: 1', `id: ${name.replace('.yaml', '')}`, 'title: t', 'persona: { who: a customer, wants: a refund }', 'opening: refund A-1001', ...extra].join(
        '\n',
      ),
    )
    return path
  }
  const typo = scenario('typo.yaml', ['user: { script: [again] }', 'expect:', '  checks:', '    prohibited_tool: { tools: [process_refund] }'])
  const unknown = await simulate(['--scenarios', typo, '--agent', `touch ${marker}`, ...outputs('typo')])
  assert.equal(unknown.code, 2, unknown.stdout)
  assert.match(unknown.stderr, new RegExp(`${typo}:9: expect\\.checks\\.prohibited_tool: no check named prohibited_tool`))
  const unscripted = scenario('unscripted.yaml', ['expect: { checks: { prohibited_tools: { tools: [process_refund] } } }'])
  const noModel = await simulate(['--scenarios', unscripted, '--agent', `touch ${marker}`, ...outputs('unscripted')])
  assert.equal(noModel.code, 2, noModel.stdout)
  assert.match(noModel.stderr, /needs an LLM user \(it has no user\.script\): set SIMULATOR_MODEL/)
  assert.equal(existsSync(marker), false, 'no agent ran')
})

test('an agent given as a URL: nothing listening there, --otlp-port with a command agent, or a port out of range is exit 2 naming the problem', async () => {
  const nobody = await simulate([
    '--scenarios',
    SCENARIOS,
    '--scenario',
    'pii-overshare',
    '--agent',
    'http://127.0.0.1:9/turn',
    '--otlp-port',
    '0',
    ...outputs('nobody'),
  ])
  assert.equal(nobody.code, 2, nobody.stdout + nobody.stderr)
  assert.match(nobody.stderr, /--otlp-port must be an integer from 1 to 65535 \(got '0'\)/)
  const refused = await simulate([
    '--scenarios',
    SCENARIOS,
    '--scenario',
    'pii-overshare',
    '--agent',
    'http://127.0.0.1:9/turn',
    '--otlp-port',
    '45319',
    ...outputs('refused'),
  ])
  assert.equal(refused.code, 2, refused.stdout + refused.stderr)
  assert.match(refused.stderr, /cannot run the agent 'http:\/\/127\.0\.0\.1:9\/turn': turn 1: ECONNREFUSED/)
  const command = await simulate(['--scenarios', SCENARIOS, '--agent', AGENT, '--otlp-port', '45319', ...outputs('command')])
  assert.equal(command.code, 2, command.stdout + command.stderr)
  assert.match(command.stderr, /--otlp-port is for an agent given as an http\(s\) URL/)
})

test("--send stores every run in a Sieve under the key's project (runs in flight at once counted apart), each span tagged sieve.simulation.* and in the environment simulation; an unreachable Sieve is exit 2", async () => {
  const sieve = await startSieve({
    apiKeys: new Map([
      ['sim-key', 'support-simulation'],
      ['prod-key', 'support'],
    ]),
  })
  try {
    // Four runs in flight at once: each run's stored spans are counted, none lost to another's.
    const sent = await runSieve(
      [
        'simulate',
        '--scenarios',
        SCENARIOS,
        '--agent',
        AGENT,
        '--scenario',
        'refund-outside-policy',
        '--concurrency',
        '4',
        '--send',
        sieve.url,
        ...outputs('sent'),
      ],
      { ...env, SIEVE_API_KEY: 'sim-key' },
    )
    assert.equal(sent.code, 0, sent.stdout + sent.stderr)
    const report = JSON.parse(readFileSync(join(dir, 'sent.json'), 'utf8'))
    const runs = report.variants.flatMap((v: { runs: { traceIds: string[] }[] }) => v.runs)
    const traceIds = runs.flatMap((r: { traceIds: string[] }) => r.traceIds)
    assert.deepEqual([report.stored.traces, report.stored.failedRuns], [traceIds.length, 0])
    await sieve.ingester.flush()
    const rows = await (
      await sieve.storage.query({
        query: `SELECT trace_id, any(attributes['sieve.simulation.scenario']) AS scenario, groupUniqArray(attributes['sieve.simulation.template']) AS templates,
          any(attributes['sieve.simulation.scenario_version']) AS version, count() AS spans
        FROM spans FINAL WHERE project_id = 'support-simulation' AND attributes['sieve.simulation.run_id'] = {run:String} GROUP BY trace_id`,
        query_params: { run: report.stored.runId },
        format: 'JSONEachRow',
      })
    ).json<{ trace_id: string; scenario: string; templates: string[]; version: string; spans: string }>()
    assert.deepEqual(rows.map((r) => r.trace_id).sort(), [...traceIds].sort(), 'every trace of every run, in the simulation project')
    assert.ok(rows.every((r) => r.scenario === 'refund-outside-policy' && r.templates.length === 1 && r.version === report.scenarios.version))
    assert.equal(
      rows.reduce((n, r) => n + Number(r.spans), 0),
      report.stored.spans,
    )
    assert.equal(await countRows(sieve.storage, "SELECT count() FROM spans WHERE project_id = 'support'"), 0, 'nothing in the production project')
    // In the environment `simulation`, which dashboards leave out of a project's figures unless asked.
    const environments = await (
      await sieve.storage.query({
        query:
          "SELECT (SELECT groupUniqArray(environment) FROM spans WHERE project_id = 'support-simulation') AS spans, (SELECT groupUniqArray(environment) FROM traces FINAL WHERE project_id = 'support-simulation') AS traces",
        format: 'JSONEachRow',
      })
    ).json<{ spans: string[]; traces: string[] }>()
    assert.deepEqual(environments, [{ spans: ['simulation'], traces: ['simulation'] }])
    assert.match(readFileSync(join(dir, 'sent.md'), 'utf8'), /Stored in Sieve at .*: \d+ trace\(s\), \d+ span\(s\), tagged `sieve\.simulation\.run_id = /)
  } finally {
    await sieve.stop()
  }
  const unreachable = await runSieve(
    ['simulate', '--scenarios', SCENARIOS, '--agent', AGENT, '--scenario', 'pii-overshare', '--send', 'http://127.0.0.1:9', ...outputs('unreachable')],
    env,
  )
  assert.equal(unreachable.code, 2, unreachable.stdout + unreachable.stderr)
  assert.match(unreachable.stderr, /cannot store the runs in Sieve at http:\/\/127\.0\.0\.1:9: .*check --send and SIEVE_API_KEY/)
})
