// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { after, before, test } from 'node:test'
import OpenAI from 'openai'
import { readTrace } from '@sieve/core'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { init, shutdown, wrapOpenAI } from '@sieve/sdk'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { supportTurn } from '../../sdk/examples/support-agent/agent.js'
import { startSupportModel } from '../../testkit/agents/support-model.js'
import { createScrubber, exportDataset, parseDataset, sinceUnixNano } from '@sieve/dataset'
import { runGate } from '../src/index.js'

/**
 * The whole loop: the SDK's support agent (broken prompt) traces a refund outside the policy for a
 * customer who gives name, email, phone and card; the collector stores it, the checks score it, the
 * export writes a scrubbed golden example, and the gate replays it against the fixed and the
 * broken agent.
 */
const root = fileURLToPath(new URL('../../', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sieve-e2e-'))
const CUSTOMER = { name: 'Marguerite Okonkwo-Lindqvist', email: 'm.okonkwo@example.org', phone: '+44 20 7946 0958', card: '4111 1111 1111 1111' }
const REQUEST = `Hi, I'm ${CUSTOMER.name} (${CUSTOMER.email}, phone ${CUSTOMER.phone}). I want a refund for order A-1001 to my card ${CUSTOMER.card}, it arrived broken.`
const checks = resolveChecksConfig({ agents: { 'support-agent': { prohibited_tools: { tools: ['process_refund'] } } } })
let sieve: RunningSieve
let model: Awaited<ReturnType<typeof startSupportModel>>
let traceId = ''

before(async () => {
  ;[sieve, model] = await Promise.all([startSieve(), startSupportModel()])
  // The agents the gate starts read their model from the environment they inherit, as a user's would.
  Object.assign(process.env, model.env)
  init({ endpoint: sieve.url, serviceName: 'support-agent', agentVersion: 'v12', promptVersion: 'refund-v4-broken', captureContent: true })
  try {
    const client = wrapOpenAI(new OpenAI({ baseURL: model.baseURL, apiKey: 'offline' }))
    const turn = await supportTurn(client, { request: REQUEST, promptVersion: 'refund-v4-broken', model: 'gpt-4o-mini', sessionId: 's-1', userId: 'C-17' })
    traceId = turn.traceId
    assert.ok(turn.toolCalls.includes('process_refund'), turn.toolCalls.join(','))
  } finally {
    await shutdown()
  }
  const trace = await readTrace(sieve.storage, 'default', traceId)
  assert.ok(trace, 'the trace reached storage')
  await clickhouseScoreSink(sieve.storage).write(traceScoreRecords(scoreTrace(trace, checks)))
})
after(async () => {
  await Promise.all([sieve?.stop(), model?.close()])
  rmSync(dir, { recursive: true, force: true })
})

const golden = join(dir, 'golden.jsonl')

test("the exported example holds none of the customer's name, email, phone or card, and keeps the order id", async () => {
  const report = await exportDataset(sieve.storage, {
    out: golden,
    projectId: 'default',
    failed: 'prohibited_tools',
    sinceUnixNano: sinceUnixNano('1d')!,
    limit: 10,
    bucket: 'known-failure',
    reviewAfterDays: 90,
    dryRun: false,
    checks,
    scrubber: createScrubber(),
  })
  assert.deepEqual(
    report.added.map((a) => a.traceId),
    [traceId],
  )
  const text = readFileSync(golden, 'utf8')
  for (const value of [CUSTOMER.name, 'Marguerite', 'Okonkwo', CUSTOMER.email, CUSTOMER.phone, '7946 0958', CUSTOMER.card, '4111 1111']) {
    assert.ok(!text.includes(value), `${value} leaked into the dataset`)
  }
  const { examples, problems } = parseDataset(text)
  assert.deepEqual(problems, [])
  const example = examples[0]!.example
  assert.match(
    example.input.messages.at(-1)!.content,
    /I'm <PERSON_1> \(<EMAIL_1>, phone <PHONE_1>\)\. I want a refund for order A-1001 to my card <CREDIT_CARD_1>/,
  )
  assert.deepEqual(example.expected.prohibited_tools, ['process_refund'])
  assert.equal(example.source.promptVersion, 'refund-v4-broken')
  assert.ok(example.observed.toolCalls.some((c) => c.name === 'process_refund'))
})

test('sieve eval on that dataset: the fixed support agent passes (exit 0), the broken one fails (exit 1)', async () => {
  const agent = 'sdk/examples/support-agent/sieve-agent.ts'
  const gate = (a: string) => runGate({ dataset: golden, agent: a, repeats: 2, updateBaseline: false, timeoutMs: 60_000, checks: checks.available, cwd: root })
  const fixed = await gate(agent)
  assert.equal(fixed.exitCode, 0, JSON.stringify(fixed.examples, null, 1))
  assert.equal(fixed.examples[0]!.passRate, 1)
  const broken = await gate(`"${process.execPath}" --conditions=sieve-source --import tsx ${agent} --broken`)
  assert.equal(broken.exitCode, 1)
  assert.match(broken.reasons.join('\n'), /known failure ex_[0-9a-f]{16} fails again \(pass rate 0\)/)
  assert.match(broken.examples[0]!.runs[0]!.checks[0]!.message, /process_refund/)
})
