import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { loadConfig } from '@sieve/core'
import { resolveChecksConfig } from '@sieve/scoring'
import { failWith, say, startFakeOpenAI } from '@sieve/testkit'
import { startSupportModel } from '../../testkit/agents/support-model.js'
import { runSimulation, SimulateConfigError, simulatorSectionSchema, USER_PROMPT_VERSION, type SimulateOptions } from '../src/index.js'
import { writeScenarioFile } from './scenario-file.js'

/*
 * `sieve simulate` driving real agent processes: the SDK's example support agent (its model the
 * scripted local one, at the HTTP boundary) and a small echo agent that says which run, session and
 * turn it was called for. The LLM user's model is testkit's OpenAI-compatible server.
 */

const ROOT = new URL('../../', import.meta.url).pathname
const EXAMPLES = join(ROOT, 'sdk/examples/support-agent/scenarios')
const SUPPORT = 'sdk/examples/support-agent/sieve-agent.ts'
const ECHO = 'replay/test/agents/simulation-echo.ts'
const dir = mkdtempSync(join(tmpdir(), 'sieve-simulate-'))
after(() => rmSync(dir, { recursive: true, force: true }))
// The support agent's model, in the environment every agent process inherits.
const supportModel = await startSupportModel()
Object.assign(process.env, supportModel.env)
after(() => supportModel.close())

// The example's own config: prohibited_tools for the support agent, and its scorecard's gate.
const { sections } = loadConfig({ SIEVE_CONFIG_FILE: join(ROOT, 'sdk/examples/support-agent/sieve.yaml') })
const checks = resolveChecksConfig(sections.checks, [], sections.scorecards)

function scenarioFile(name: string, body: Record<string, unknown>): string {
  return writeScenarioFile(dir, name, {
    persona: { who: 'A customer.', wants: 'help with order A-1001' },
    opening: 'I want a refund for order A-1001.',
    expect: { checks: { prohibited_tools: { tools: ['process_refund'] } } },
    ...body,
  })
}

const simulate = (o: Partial<SimulateOptions> & Pick<SimulateOptions, 'scenarios' | 'agent'>) =>
  runSimulation({ repeats: 1, concurrency: 1, timeoutMs: 60_000, checks, user: 'auto', updateBaseline: false, cwd: ROOT, ...o })

const simulator = (baseUrl: string, prices = {}) => ({
  ...simulatorSectionSchema.parse({ maxRetries: 0, prices }),
  baseUrl,
  apiKey: 'k',
  model: 'sim-2025-01-01',
})

test("a scripted user runs to its stop condition: [DONE], the end of its script, the agent's handoff phrase, the turn limit", async () => {
  const handoff = scenarioFile('handoff.yaml', {
    user: { script: ['Hello?', 'Anyone?'] },
    stop: { maxTurns: 5, handoff: 'heard 3 message(s)' },
    facts: { fixtures: { orders: { 'A-1001': 'x' } } },
  })
  const limit = scenarioFile('limit.yaml', { user: { script: ['again', 'again'] }, stop: { maxTurns: 1 } })
  const ended = scenarioFile('ended.yaml', { user: { script: ['one more thing'] }, stop: { maxTurns: 4 } })
  const echo = await simulate({ scenarios: [handoff, limit, ended], agent: ECHO, now: '2026-03-01T12:00:00Z' })
  const byId = Object.fromEntries(echo.variants.map((v) => [v.scenario, v.runs[0]!]))
  assert.deepEqual(Object.fromEntries(Object.entries(byId).map(([id, r]) => [id, [r.stop.reason, r.turns]])), {
    handoff: ['handoff', 2],
    limit: ['max-turns', 1],
    ended: ['script-ended', 2],
  })
  // The agent protocol as the echo agent heard it: its run, session, turn and the scenario's fixtures.
  const run = byId.handoff!
  assert.match(
    run.transcript[1]!.content,
    new RegExp(`^run handoff@base#1 turn 1 session ${run.sessionId} fixtures \\{"orders":\\{"A-1001":"x"\\}\\} heard 1 message`),
  )
  assert.deepEqual(
    run.transcript.map((m) => m.role),
    ['user', 'assistant', 'user', 'assistant'],
  )
  assert.equal(echo.stamps.agentNow, '2026-03-01T12:00:00Z')

  // The SDK's example agent on the example's refund scenario: its script ends with [DONE].
  const support = await simulate({ scenarios: [EXAMPLES], agent: SUPPORT, only: { scenarios: ['refund-outside-policy'], templates: ['base'] } })
  const refund = support.variants[0]!.runs[0]!
  assert.deepEqual([refund.stop.reason, refund.turns, refund.passed, support.exitCode], ['user-done', 2, true, 0])
  assert.match(refund.transcript[1]!.content, /outside our 30-day refund window/)
  assert.equal(refund.traceIds.length, 2, 'one trace per agent call, scored together')
  assert.deepEqual(refund.scorecard?.failedGates, [])
})

test('an LLM user (an OpenAI-compatible server) plays from the persona, sees only the visible conversation, and ends with [DONE]', async () => {
  const model = await startFakeOpenAI({ script: [say('I still want my money back, not store credit.'), say('[DONE]')] })
  try {
    const report = await simulate({
      scenarios: [EXAMPLES],
      agent: SUPPORT,
      user: 'llm',
      simulator: simulator(model.baseURL),
      only: { scenarios: ['refund-outside-policy'], templates: ['base'] },
    })
    const run = report.variants[0]!.runs[0]!
    assert.deepEqual([run.user, run.stop.reason, run.turns, run.passed], ['llm', 'user-done', 2, true])
    assert.equal(run.transcript[2]!.content, 'I still want my money back, not store credit.')
    const first = model.requests[0]!.body
    assert.equal(first.model, 'sim-2025-01-01')
    assert.match(first.messages[0].content, /Margaret Chen[\s\S]*a full refund to her card[\s\S]*a refund outside the 30-day window/)
    // Its own turns as the assistant's, the agent's answers as the user's; never a tool call or result.
    assert.deepEqual(
      first.messages.slice(1).map((m: { role: string }) => m.role),
      ['assistant', 'user'],
    )
    assert.equal(first.messages[1].content, 'Hi, I want a refund for order A-1001, it arrived broken.')
    assert.ok(!JSON.stringify(model.requests.map((r) => r.body)).match(/check_order_status|create_store_credit|"tool"/), 'the simulator sees no tools')
    assert.deepEqual(report.stamps.simulator, { model: 'sim-2025-01-01', promptVersion: USER_PROMPT_VERSION })
    assert.equal(report.cost.simulatorCalls, 2)
  } finally {
    await model.close()
  }
})

test('repeats and concurrency keep runs apart: distinct sessions and traces, each scored on its own spans only', async () => {
  // turn_budget counts the tool spans a run was scored on: one per turn, two per run, no more.
  const apart = scenarioFile('apart.yaml', {
    user: { script: ['and then?'] },
    stop: { maxTurns: 2 },
    templates: ['impatient'],
    expect: { checks: { turn_budget: { maxToolCalls: 2 } } },
  })
  const report = await simulate({ scenarios: [apart], agent: ECHO, repeats: 2, concurrency: 4 })
  const runs = report.variants.flatMap((v) => v.runs.map((r) => ({ ...r, template: v.template })))
  assert.equal(runs.length, 4)
  assert.equal(new Set(runs.map((r) => r.sessionId)).size, 4, 'a session per run')
  assert.equal(new Set(runs.flatMap((r) => r.traceIds)).size, 8, 'a trace per turn, none shared')
  for (const r of runs) {
    const answers = r.transcript.filter((m) => m.role === 'assistant').map((m) => m.content)
    assert.deepEqual(
      answers.map((a) => a.slice(0, a.indexOf(' fixtures'))),
      [1, 2].map((turn) => `run apart@${r.template}#${r.run} turn ${turn} session ${r.sessionId}`),
    )
    assert.equal(r.checks[0]!.message, '0 model calls, 2 tool calls')
    assert.equal(r.passed, true)
  }
  assert.equal(report.exitCode, 0)
})

test('the cost ceiling stops a run: no simulator call past it, the run is cut short and not counted; a scenario left without a finished run is exit 2', async () => {
  const model = await startFakeOpenAI({ script: () => say('Still there?', { usage: { inputTokens: 1000, outputTokens: 100 } }) })
  try {
    const costly = scenarioFile('costly.yaml', { stop: { maxTurns: 5 } })
    // $10 per million tokens: each simulator call costs $0.011, past the $0.01 ceiling.
    const report = await simulate({
      scenarios: [costly],
      agent: ECHO,
      repeats: 2,
      simulator: simulator(model.baseURL, { 'sim-2025-01-01': { input: 10, output: 10 } }),
      maxCostUsd: 0.01,
    })
    const [first, second] = report.variants[0]!.runs
    assert.deepEqual([first!.stop.reason, first!.turns, first!.incomplete], ['max-cost', 2, true])
    assert.deepEqual([second!.stop.reason, second!.turns], ['max-cost', 0], 'the next run does not start')
    assert.equal(model.requests.length, 1)
    assert.deepEqual([report.cost.simulatorUsd, report.cost.reached, report.variants[0]!.status], [0.011, true, 'incomplete'])
    assert.equal(report.exitCode, 2)
    assert.match(report.reasons.join('\n'), /costly@base: no run finished .*raise --max-cost/)
  } finally {
    await model.close()
  }
})

test('a simulator that refuses every request is a setup error, not a failing scenario', async () => {
  const model = await startFakeOpenAI({ script: () => failWith(401, { message: 'invalid api key' }) })
  try {
    const refused = scenarioFile('refused.yaml', { stop: { maxTurns: 3 } })
    await assert.rejects(
      simulate({ scenarios: [refused], agent: ECHO, simulator: simulator(model.baseURL) }),
      (err: Error) => err instanceof SimulateConfigError && /the simulator cannot be reached: .*HTTP 401/.test(err.message),
    )
  } finally {
    await model.close()
  }
})

test('--repeats auto runs rounds of repeats for every scenario × template, the runs numbered on, and says where and why it stopped', async () => {
  const rounds = scenarioFile('rounds.yaml', { user: { script: ['and then?'] }, stop: { maxTurns: 2 } })
  const lines: string[] = []
  const report = await simulate({ scenarios: [rounds], agent: ECHO, repeats: 'auto', policy: { maxRepeats: 4 }, concurrency: 2, log: (l) => lines.push(l) })
  const runs = report.variants[0]!.runs
  assert.deepEqual(
    runs.map((r) => r.run),
    [1, 2, 3, 4],
  )
  assert.equal(new Set(runs.map((r) => r.sessionId)).size, 4)
  assert.equal(report.repeats, 4)
  assert.deepEqual([report.repeatsAuto?.rounds, report.repeatsAuto?.stopped], [2, 'max-repeats'])
  assert.match(report.repeatsAuto!.detail, /^--max-repeats 4 reached; detectable drops there: pass rate 0\.\d+, above the fail threshold 0\.1$/)
  assert.ok(lines.includes('--repeats auto: 3 → 4 repeats each'), lines.join('\n'))
  const passRate = report.metrics.find((m) => m.name === 'pass rate')!
  assert.deepEqual([passRate.kind, passRate.kind === 'graded' && passRate.now.runs], ['graded', 4])
})
