import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { readTrace } from '@sieve/core'
import { GEN_AI, OTHER, SIEVE_ATTR } from '@sieve/protocol'
import { resolveChecksConfig, scoreTrace } from '@sieve/scoring'
import { callTools, prerequisite, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * Sieve's Python helper (sdk/python) as a Python team installs it: its wheel, built by pip through
 * its build backend, installed into a fresh virtual environment outside the repository with the
 * openai client and OpenInference's instrumentation from the registry, then a Python agent traced
 * with it against the fake model and a running Sieve.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const PYTHON = process.env.SIEVE_TEST_PYTHON3 ?? 'python3'
const run = promisify(execFile)

/** Why this machine cannot make a virtual environment, or false. */
function noVenv(): string | false {
  try {
    execFileSync(PYTHON, ['-c', 'import venv, ensurepip'], { stdio: 'pipe' })
    return false
  } catch {
    return `${PYTHON} cannot make a virtual environment (apt-get install python3 python3-venv, or set SIEVE_TEST_PYTHON3)`
  }
}
const skip = prerequisite(noVenv())

/** The versions the repository's Python agents are tested with (testkit/agents/python/requirements.txt). */
function pinned(...names: string[]): string[] {
  const lines = readFileSync(join(ROOT, 'testkit/agents/python/requirements.txt'), 'utf8').split('\n')
  return names.map((name) => {
    const line = lines.find((l) => l.startsWith(`${name}==`))
    assert.ok(line, `${name} is pinned in requirements.txt`)
    return line
  })
}

test("the Python attribute names are @sieve/protocol's", { skip }, () => {
  const file = join(ROOT, 'sdk/python/src/sieve/attributes.py')
  const printed = execFileSync(
    PYTHON,
    ['-c', `import json, runpy, sys; ns = runpy.run_path(sys.argv[1]); print(json.dumps({k: ns[k] for k in ("GEN_AI", "OTHER", "SIEVE_ATTR")}))`, file],
    { encoding: 'utf8' },
  )
  assert.deepEqual(JSON.parse(printed), { GEN_AI, OTHER, SIEVE_ATTR })
})

let sieve: RunningSieve
let model: FakeOpenAI
let work: string

before(async () => {
  if (skip) return
  work = mkdtempSync(join(tmpdir(), 'sieve-python-sdk-'))
  sieve = await startSieve()
  model = await startFakeOpenAI({ script: [] })
})
after(async () => {
  await model?.close()
  await sieve?.stop()
  if (work) rmSync(work, { recursive: true, force: true })
})

test('a Python agent traced with the wheel fails prohibited_tools on its refund, and its feedback reaches the trace', { skip, timeout: 600_000 }, async () => {
  const venv = join(work, 'venv')
  const python = join(venv, 'bin', 'python')
  await run(PYTHON, ['-m', 'venv', venv])
  const pip = (...args: string[]) => run(python, ['-m', 'pip', '--disable-pip-version-check', '-q', ...args], { cwd: work, maxBuffer: 16 << 20 })
  // The wheel, built through the project's declared backend in an isolated build environment.
  await pip('wheel', '--no-deps', '-w', join(work, 'wheels'), join(ROOT, 'sdk/python'))
  const wheel = readdirSync(join(work, 'wheels')).find((f) => f.endsWith('.whl'))
  assert.match(wheel ?? '', /^sieve_sdk-0\.1\.0-py3-none-any\.whl$/)
  await pip('install', join(work, 'wheels', wheel!), ...pinned('openai', 'openinference-instrumentation-openai'))

  model.setScript([
    callTools([{ id: 'call_1', name: 'process_refund', arguments: { order_id: 'A-1' } }], { usage: { inputTokens: 40, outputTokens: 9 } }),
    say('I have refunded order A-1.', { usage: { inputTokens: 61, outputTokens: 8 } }),
  ])
  const { stdout } = await run(python, [join(ROOT, 'testkit/agents/python/sieve_sdk_agent.py')], {
    cwd: work,
    env: { ...process.env, MODEL_BASE_URL: model.baseURL, SIEVE_ENDPOINT: sieve.url },
  })
  const printed = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
    traceId: string
    answer: string
    instrumentations: string[]
    feedback: boolean
    error: string | null
  }
  assert.equal(printed.answer, 'I have refunded order A-1.')
  assert.deepEqual(printed.instrumentations, ['openinference.instrumentation.openai'], 'the installed instrumentation is on')
  assert.equal(printed.feedback, true, printed.error ?? '')

  const trace = await readTrace(sieve.storage, 'default', printed.traceId)
  assert.ok(trace, 'the trace arrived')
  const byName = new Map(trace.spans.map((s) => [s.name, s]))
  const agent = byName.get('invoke_agent support-agent')!
  assert.equal(agent.attributes[GEN_AI.agentVersion], 'v3')
  assert.equal(agent.attributes[SIEVE_ATTR.promptVersion], 'refund-v4-broken')
  assert.equal(agent.attributes[GEN_AI.conversationId], 'py-session-1')
  assert.equal(agent.attributes[OTHER.userId], 'C-17')
  assert.equal(agent.resource[OTHER.serviceName], 'py-support')
  const refund = byName.get('execute_tool process_refund')!
  assert.equal(refund.parentSpanId, agent.spanId)
  assert.deepEqual(JSON.parse(String(refund.attributes[GEN_AI.toolCallArguments])), { order_id: 'A-1' })
  assert.equal(trace.spans.filter((s) => s.parentSpanId === agent.spanId && s.name !== refund.name).length, 2, 'the two model calls, under the agent span')

  const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: ['process_refund'] } } })
  const failed = scoreTrace(trace, checks).results.find((r) => r.name === 'prohibited_tools')
  assert.equal(failed?.passed, false, 'prohibited_tools fails on the refund')

  const stored = await (
    await sieve.storage.query({
      query: 'SELECT score, comment, user_id FROM feedback WHERE trace_id = {id:String}',
      query_params: { id: printed.traceId },
      format: 'JSONEachRow',
    })
  ).json<{ score: number; comment: string; user_id: string }>()
  assert.deepEqual(stored, [{ score: -1, comment: 'refunded outside the policy', user_id: 'C-17' }])
})
