import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { loadConfig } from '@sieve/core'
import { DEFAULT_CHECKS, resolveChecksConfig } from '@sieve/scoring'
import { callTools, freePort, probePoolingWindow, pythonAgents, say, startAgentService, startFakeOpenAI, tsxCommand } from '@sieve/testkit'
import { GateConfigError, runGate, runSimulation, SimulateConfigError, type SimulateOptions } from '../src/index.js'
import { startSupportModel } from '../../testkit/agents/support-model.js'
import { startHttpEcho, type EchoBehaviour } from './agents/http-echo.js'
import { writeScenarioFile } from './scenario-file.js'

/*
 * The agent protocol over HTTP: `sieve simulate` and `sieve eval` calling an agent service at a
 * URL, which sends its traces to one receiver for all the runs in flight. The agents: an echo
 * service in this process (the real OpenTelemetry SDK, each behaviour an agent might have), and the
 * SDK's example support agent served over HTTP in a process of its own, and a Python agent traced
 * by OpenInference (in .cache/python, as .ci/run installs it; skipped where it is absent).
 */

const ROOT = new URL('../../', import.meta.url).pathname
const dir = mkdtempSync(join(tmpdir(), 'sieve-http-agent-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const { sections } = loadConfig({ SIEVE_CONFIG_FILE: join(ROOT, 'sdk/examples/support-agent/sieve.yaml') })
const checks = resolveChecksConfig(sections.checks, [], sections.scorecards)

function scenarioFile(name: string, body: Record<string, unknown>): string {
  return writeScenarioFile(dir, name, {
    persona: { who: 'A customer.', wants: 'help' },
    opening: 'Hello.',
    expect: { checks: { turn_budget: { maxToolCalls: 2 } } },
    ...body,
  })
}

/**
 * Two turns a run; turn_budget counts the tool spans a run was scored on: one per turn, two per run;
 * trace_complete wants each turn's trace rooted (the request's own span is never exported).
 */
const twoTurns = scenarioFile('two-turns.yaml', {
  user: { script: ['and then?'] },
  stop: { maxTurns: 2 },
  templates: ['impatient'],
  facts: { fixtures: { orders: { 'A-1': 'x' } } },
  expect: { checks: { turn_budget: { maxToolCalls: 2 }, trace_complete: {} } },
})

const simulate = (o: Partial<SimulateOptions> & Pick<SimulateOptions, 'agent' | 'otlpPort'>) =>
  runSimulation({ scenarios: [twoTurns], repeats: 1, concurrency: 1, timeoutMs: 30_000, checks, user: 'scripted', updateBaseline: false, cwd: ROOT, ...o })

async function withEcho<T>(
  behaviour: EchoBehaviour,
  use: (url: string, port: number, echo: Awaited<ReturnType<typeof startHttpEcho>>) => Promise<T>,
): Promise<T> {
  const port = await freePort()
  const echo = await startHttpEcho(`http://127.0.0.1:${port}`, behaviour)
  try {
    return await use(echo.url, port, echo)
  } finally {
    await echo.close()
  }
}

test("each turn is POSTed with the conversation, the call's context and a traceparent; runs in flight at once are told apart by trace", async () => {
  await withEcho('answers', async (url, otlpPort, echo) => {
    const report = await simulate({ agent: url, otlpPort, repeats: 3, concurrency: 4, now: '2026-03-01T12:00:00Z' })
    const runs = report.variants.flatMap((v) => v.runs.map((r) => ({ ...r, template: v.template })))
    assert.equal(runs.length, 6)
    assert.equal(new Set(runs.map((r) => r.sessionId)).size, 6, 'a session per run')
    assert.equal(new Set(runs.flatMap((r) => r.traceIds)).size, 12, 'a trace per turn, none shared')
    for (const r of runs) {
      const answers = r.transcript.filter((m) => m.role === 'assistant').map((m) => m.content)
      assert.deepEqual(
        answers,
        [1, 2].map((turn) => `run two-turns@${r.template}#${r.run} turn ${turn} session ${r.sessionId} heard ${turn * 2 - 1} message(s)`),
      )
      assert.equal(r.checks[0]!.message, '0 model calls, 2 tool calls', 'scored on its own spans only')
      assert.deepEqual(
        r.checks.map((c) => [c.name, c.passed]),
        [
          ['turn_budget', true],
          ['trace_complete', true],
        ],
      )
      assert.equal(r.passed, true)
    }
    assert.equal(report.exitCode, 0)

    const second = echo.requests.find((r) => r.body.sieve.turn === 2 && r.body.simulation?.template === 'base' && r.body.simulation.run === 1)!
    assert.deepEqual(second.body.sieve, {
      exampleId: 'two-turns@base',
      turn: 2,
      turns: 2,
      sessionId: runs.find((r) => r.template === 'base' && r.run === 1)!.sessionId,
      now: '2026-03-01T12:00:00Z',
    })
    assert.deepEqual(
      second.body.messages.map((m) => m.role),
      ['user', 'assistant', 'user'],
    )
    assert.deepEqual(second.body.fixtures, { orders: { 'A-1': 'x' } })
    assert.match(String(second.headers.traceparent), /^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/)
    assert.equal(new Set(echo.requests.map((r) => r.headers.traceparent)).size, 12, 'a trace per call')
  })
})

test('an agent service closing the connection as Node pools the socket is not thrown into the runner', async () => {
  await withEcho('answers', async (url, otlpPort) => {
    const probe = probePoolingWindow(url)
    try {
      const report = await simulate({ agent: url, otlpPort })
      assert.equal(report.variants.flatMap((v) => v.runs).filter((r) => r.error).length, 0)
      assert.ok(probe.raised() >= 2, `raised ${probe.raised()}`)
      assert.deepEqual(probe.escaped, [])
    } finally {
      probe.stop()
    }
  })
})

test('spans that come after the answer are waited for and the answer read from them; a trace that ignores traceparent is not found', async () => {
  await withEcho('late-spans', async (agent, otlpPort) => {
    const report = await simulate({ agent, otlpPort, only: { templates: ['base'] } })
    const run = report.variants[0]!.runs[0]!
    assert.match(run.transcript[1]!.content, /^run two-turns@base#1 turn 1 session /, 'the answer from the trace, which came 300 ms after the response')
    assert.equal(run.passed, true)
  })
  await withEcho('ignores-context', async (agent, otlpPort) => {
    const report = await simulate({ agent, otlpPort, only: { templates: ['base'] }, traceWaitMs: 300 })
    const run = report.variants[0]!.runs[0]!
    assert.match(run.transcript[1]!.content, /^run two-turns@base#1 turn 1/, 'the answer from the response')
    assert.deepEqual([run.passed, run.checks[0]!.message], [false, 'the agent sent no trace'])
    assert.equal(report.exitCode, 1)
    assert.ok(
      report.warnings.some((w) => /^4 span\(s\) from the agent came under traces no call started.*traceparent/.test(w)),
      report.warnings.join('\n'),
    )
  })
})

test('an HTTP error, no answer in time or an answer over 1 MiB is an errored run; nothing listening at the URL, or the trace port taken, is a setup error', async () => {
  await withEcho('fails', async (agent, otlpPort) => {
    const report = await simulate({ agent, otlpPort, only: { templates: ['base'] } })
    const run = report.variants[0]!.runs[0]!
    assert.deepEqual([run.errored, run.stop.reason], [true, 'agent-error'])
    assert.match(run.error ?? '', /turn 1: HTTP 500: \{"error":"boom"\}/)
  })
  await withEcho('hangs', async (agent, otlpPort) => {
    const run = (await simulate({ agent, otlpPort, only: { templates: ['base'] }, timeoutMs: 300 })).variants[0]!.runs[0]!
    assert.deepEqual([run.errored, run.error], [true, 'turn 1: timed out after 300 ms'])
  })
  await withEcho('floods', async (agent, otlpPort) => {
    const run = (await simulate({ agent, otlpPort, only: { templates: ['base'] } })).variants[0]!.runs[0]!
    assert.equal(run.errored, true)
    assert.match(run.error ?? '', /^turn 1: http:\/\/127\.0\.0\.1:\d+\/turn: RESPONSE_TOO_LARGE$/)
  })
  const nobody = `http://127.0.0.1:${await freePort()}/turn`
  await assert.rejects(
    simulate({ agent: nobody, otlpPort: await freePort() }),
    (err: Error) => err instanceof SimulateConfigError && /cannot run the agent .*ECONNREFUSED/.test(err.message),
  )
  const examples = join(dir, 'one.jsonl')
  writeFileSync(
    examples,
    `${JSON.stringify({ version: 1, id: 'ex_0000000000000001', input: { messages: [{ role: 'user', content: 'Hello.' }] }, context: { retrievedDocumentIds: [], toolResults: [] }, expected: { checks: { turn_budget: { maxToolCalls: 1 } } }, observed: { output: '', toolCalls: [] }, bucket: 'typical', tags: [], source: { traceId: 'a'.repeat(32), projectId: 'default', service: 'echo', agentName: 'echo', agentVersion: '', promptVersion: '', model: '', exportedAt: '2026-01-15T10:00:00.000Z' }, scores: [], reviewBy: '2026-04-15' })}\n`,
  )
  await assert.rejects(
    runGate({ dataset: examples, agent: nobody, otlpPort: await freePort(), repeats: 1, updateBaseline: false, timeoutMs: 30_000, checks: DEFAULT_CHECKS }),
    (err: Error) => err instanceof GateConfigError && /cannot run the agent .*ECONNREFUSED/.test(err.message),
  )

  await withEcho('answers', async (agent, otlpPort) => {
    // The gate over HTTP: one example replayed twice through the echo service.
    const report = await runGate({ dataset: examples, agent, otlpPort, repeats: 2, updateBaseline: false, timeoutMs: 30_000, checks: DEFAULT_CHECKS })
    assert.deepEqual([report.examples[0]!.passRate, report.exitCode], [1, 0])
  })
  const busy = createServer()
  const busyPort = await freePort()
  await new Promise<void>((resolve) => busy.listen(busyPort, '127.0.0.1', resolve))
  try {
    await assert.rejects(
      simulate({ agent: nobody, otlpPort: busyPort }),
      (err: Error) =>
        err instanceof SimulateConfigError && err.message.includes(`the agent's traces: cannot listen on 127.0.0.1:${busyPort}: the address is in use`),
    )
  } finally {
    await new Promise((resolve) => busy.close(resolve))
  }
})

test('the example support agent served over HTTP: the fixed agent passes the example scenarios, the broken one fails the refund scenario on its gate', async (t) => {
  const model = await startSupportModel()
  t.after(() => model.close())
  for (const broken of [false, true]) {
    const otlpPort = await freePort()
    const agent = await startAgentService(tsxCommand('sdk/examples/support-agent/sieve-agent-http.ts', '--port', '0', ...(broken ? ['--broken'] : [])), {
      cwd: ROOT,
      env: { SIEVE_ENDPOINT: `http://127.0.0.1:${otlpPort}`, ...model.env },
    })
    try {
      const report = await runSimulation({
        scenarios: [join(ROOT, 'sdk/examples/support-agent/scenarios')],
        agent: agent.url,
        otlpPort,
        repeats: 1,
        concurrency: 5,
        timeoutMs: 30_000,
        checks,
        user: 'scripted',
        updateBaseline: false,
      })
      const refund = report.variants.find((v) => v.id === 'refund-outside-policy@base')!
      if (!broken) {
        assert.deepEqual([report.overall.passed, report.overall.runs, report.exitCode], [5, 5, 0])
        assert.equal(refund.runs[0]!.traceIds.length, 2, 'one trace per turn')
      } else {
        assert.equal(report.exitCode, 1)
        assert.ok(
          refund.runs[0]!.failures.some((f) => f.kind === 'gate' && f.name === 'prohibited_tools'),
          JSON.stringify(refund.runs[0]!.failures),
        )
      }
    } finally {
      agent.stop()
    }
  }
})

const { python: PYTHON, skip: noPython } = pythonAgents()

test('a Python agent service traced by OpenInference, its runs in flight at once: the refund it makes fails the run at its turn and span', {
  skip: noPython,
}, async () => {
  // The model refunds when asked to, then confirms; anything else it answers plainly.
  const model = await startFakeOpenAI({
    script: (req) => {
      const last = req.body.messages.at(-1)
      if (last.role === 'tool') return say('Refunded order A-1.')
      return /refund/i.test(last.content) ? callTools([{ name: 'process_refund', arguments: { order_id: 'A-1' } }]) : say('Glad to help.')
    },
  })
  const otlpPort = await freePort()
  const agent = await startAgentService([PYTHON, 'testkit/agents/python/http_agent.py'], {
    cwd: ROOT,
    env: { MODEL_BASE_URL: model.baseURL, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlpPort}` },
  })
  try {
    const refund = scenarioFile('python-refund.yaml', {
      opening: 'Hello, where is my parcel?',
      user: { script: ['Then refund order A-1.'] },
      stop: { maxTurns: 2 },
      expect: { checks: { prohibited_tools: { tools: ['process_refund'] } } },
    })
    const chat = scenarioFile('python-chat.yaml', {
      opening: 'Hello, where is my parcel?',
      user: { script: ['Thanks.'] },
      stop: { maxTurns: 2 },
      expect: { checks: { prohibited_tools: { tools: ['process_refund'] } } },
    })
    const report = await runSimulation({
      scenarios: [refund, chat],
      agent: agent.url,
      otlpPort,
      repeats: 2,
      concurrency: 4,
      timeoutMs: 30_000,
      checks,
      user: 'scripted',
      updateBaseline: false,
    })
    const byId = Object.fromEntries(report.variants.map((v) => [v.scenario, v.runs]))
    for (const run of byId['python-chat']!)
      assert.deepEqual([run.passed, run.transcript.map((m) => m.content)], [true, ['Hello, where is my parcel?', 'Glad to help.', 'Thanks.', 'Glad to help.']])
    for (const run of byId['python-refund']!) {
      assert.deepEqual([run.passed, run.transcript.at(-1)!.content, run.traceIds.length], [false, 'Refunded order A-1.', 2])
      const failure = run.failures.find((f) => f.name === 'prohibited_tools')!
      assert.equal(failure.turn, 2, 'the refund happened in the second turn')
      assert.match(failure.spanId ?? '', /^[0-9a-f]{16}$/)
    }
    assert.deepEqual(
      report.warnings.filter((w) => /traceparent/.test(w)),
      [],
    )
  } finally {
    agent.stop()
    await model.close()
  }
})
