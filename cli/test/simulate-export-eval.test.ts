import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { DONE, readScenarios } from '@sieve/replay'
import { printed, spawnSieve, until } from '@sieve/testkit'
import { startSupportModel } from '../../testkit/agents/support-model.js'
import { runSieve } from './support/run-sieve.js'

/*
 * A failing simulated run is a failure like any other: `sieve simulate --send` stores the broken
 * support agent's run in a running `sieve up`, which scores it; `sieve export` turns the failing
 * turn's trace into a golden example, and `sieve eval` replays that example: exit 0 against the
 * fixed agent, 1 against the broken one. Every step is the real CLI, as a user runs it.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-simulate-export-eval-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const root = fileURLToPath(new URL('../../', import.meta.url))
const AGENT = 'sdk/examples/support-agent/sieve-agent.ts'
const SCENARIOS = 'sdk/examples/support-agent/scenarios'
const fixed = `"${process.execPath}" --conditions=sieve-source --import tsx ${AGENT}`
const broken = `${fixed} --broken`
const KEY = 'sim-key'
const PROJECT = 'support-simulation'

// The example's config, scoring sooner after a trace's last span than the default 3 s.
const configFile = join(dir, 'sieve.yaml')
writeFileSync(configFile, `${readFileSync(join(root, 'sdk/examples/support-agent/sieve.yaml'), 'utf8')}\nscorer: { quietPeriodMs: 200, tickMs: 50 }\n`)
const model = await startSupportModel()
after(() => model.close())
/** What every command sees: the same data directory and config, the agent's model, no judge, no LLM user, the embedded store. */
const env = {
  ...process.env,
  ...model.env,
  SIEVE_DATA_DIR: dir,
  SIEVE_CONFIG_FILE: configFile,
  JUDGE_MODEL: '',
  SIMULATOR_MODEL: '',
  SIEVE_API_KEYS: '',
  KAFKA_BROKERS: '',
  CLICKHOUSE_URL: '',
}

interface Quality {
  scores: { kind: string; name: string; passed: boolean }[]
}

test('a failing simulated run, stored in Sieve with --send, exports and replays through sieve eval like a production failure', async () => {
  const scenario = readScenarios([join(root, SCENARIOS, 'refund-outside-policy.yaml')]).scenarios[0]!.scenario
  const scriptedUserTurns = [scenario.opening, ...(scenario.user?.script ?? []).filter((line) => line !== DONE)]
  const dataset = join(dir, 'golden.jsonl')

  const up = spawnSieve('up', { ...env, SIEVE_API_KEYS: `${KEY}:${PROJECT}` })
  let failingTrace: string
  let traceIds: string[]
  try {
    const url = await printed(up, /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/, 'sieve up is up')

    // 1. The broken agent refunds outside the policy; the runs are stored in the simulation project.
    const simulated = await runSieve(
      [
        'simulate',
        '--scenarios',
        SCENARIOS,
        '--agent',
        broken,
        '--scenario',
        'refund-outside-policy',
        '--template',
        'base',
        '--send',
        url,
        '--out',
        join(dir, 'simulate.json'),
        '--summary',
        join(dir, 'simulate.md'),
      ],
      { ...env, SIEVE_API_KEY: KEY },
    )
    assert.equal(simulated.code, 1, simulated.stdout + simulated.stderr)
    assert.match(simulated.stdout, /refund-outside-policy@base fails: pass rate 0 \(failing: prohibited_tools/)
    const report = JSON.parse(readFileSync(join(dir, 'simulate.json'), 'utf8'))
    const run = report.variants[0].runs[0]
    traceIds = run.traceIds
    assert.deepEqual(
      run.transcript.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content),
      scriptedUserTurns,
      'the scripted user said its script',
    )
    assert.deepEqual(
      [traceIds.length, report.stored.traces, report.stored.failedRuns],
      [scriptedUserTurns.length, scriptedUserTurns.length, 0],
      'one stored trace per user turn',
    )
    const gate = run.failures.find((f: { kind: string; name: string }) => f.kind === 'gate' && f.name === 'prohibited_tools')
    assert.ok(gate, JSON.stringify(run.failures))
    failingTrace = traceIds[gate.turn - 1]!

    // 2. The running Sieve scores every stored trace: the refunding turn fails prohibited_tools, the other passes.
    const quality = async (traceId: string) => {
      const res = await fetch(`${url}/api/traces/${traceId}/quality`, { headers: { authorization: `Bearer ${KEY}` } })
      return res.status === 200 ? ((await res.json()) as Quality).scores.find((s) => s.kind === 'deterministic' && s.name === 'prohibited_tools') : undefined
    }
    await until('Sieve has scored the simulated traces', async () => (await Promise.all(traceIds.map(quality))).every(Boolean), 30_000)
    assert.deepEqual(
      await Promise.all(traceIds.map(async (id) => (await quality(id))!.passed)),
      traceIds.map((id) => id !== failingTrace),
    )

    // 3. Exported through the running Sieve, from the simulation project.
    const exported = await runSieve(['export', '--out', dataset, '--failed', 'prohibited_tools', '--project', PROJECT], env)
    assert.equal(exported.code, 0, exported.stdout + exported.stderr)
    assert.match(exported.stderr, /through the running Sieve/)
    assert.match(exported.stdout, new RegExp(`added 1 example\\(s\\)[^]*trace ${failingTrace}`))
  } finally {
    if (up.child.exitCode === null && up.child.signalCode === null) {
      up.child.kill('SIGTERM')
      await once(up.child, 'exit')
    }
  }

  const lines = readFileSync(dataset, 'utf8').trim().split('\n')
  assert.equal(lines.length, 1, "only the failing turn's trace")
  const example = JSON.parse(lines[0]!)
  assert.ok(traceIds.includes(example.source.traceId), 'a trace of the simulated run')
  assert.deepEqual([example.source.traceId, example.source.projectId, example.source.agentName], [failingTrace, PROJECT, 'support-agent'])
  assert.ok(example.tags.includes('simulation:refund-outside-policy@base'), `the scenario it came from: ${example.tags}`)
  assert.deepEqual(
    example.input.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content),
    scriptedUserTurns.slice(0, traceIds.indexOf(failingTrace) + 1),
    "the scenario's user turns, up to the failing one",
  )
  assert.deepEqual(example.expected.prohibited_tools, ['process_refund'])
  assert.ok(example.observed.toolCalls.some((c: { name: string }) => c.name === 'process_refund'))

  // 4. The example replays: the fixed agent passes it, the broken one repeats the known failure.
  const replay = (agent: string, name: string) =>
    runSieve(['eval', '--dataset', dataset, '--agent', agent, '--repeats', '1', '--out', join(dir, `${name}.json`), '--summary', join(dir, `${name}.md`)], env)
  const prohibitedTools = (name: string) => {
    const result = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'))
    assert.equal(result.examples[0].id, example.id)
    return result.examples[0].runs[0].checks.find((c: { name: string }) => c.name === 'prohibited_tools')
  }
  const pass = await replay(fixed, 'fixed')
  assert.equal(pass.code, 0, pass.stdout + pass.stderr)
  assert.match(readFileSync(join(dir, 'fixed.md'), 'utf8'), /## Sieve regression gate: PASS/)
  assert.equal(prohibitedTools('fixed').passed, true)

  const fail = await replay(broken, 'broken')
  assert.equal(fail.code, 1, fail.stdout + fail.stderr)
  assert.match(fail.stdout, new RegExp(`known failure ${example.id} fails again \\(pass rate 0\\)`))
  assert.match(readFileSync(join(dir, 'broken.md'), 'utf8'), new RegExp(`${example.id} \\| known-failure \\| fail \\|.*\\| prohibited_tools`))
  const check = prohibitedTools('broken')
  assert.equal(check.passed, false)
  assert.match(check.message, /process_refund/)
})
