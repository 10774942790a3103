import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { BUILTIN_RUBRICS_DIR, buildTranscript, JudgeClient, JudgeMetrics, loadRubricDir } from '@sieve/judging'
import { VERDICT_JSON_SCHEMA } from '../src/verdict.js'
import { failWith, malformed, probePoolingWindow, say, startFakeOpenAI, verdict, type FakeOpenAI, supportConversation, numberedTraceId } from '@sieve/testkit'

const rubric = loadRubricDir(BUILTIN_RUBRICS_DIR).get('customer-support')!
const accuracy = rubric.dimensions[0]!
const transcript = buildTranscript(supportConversation(numberedTraceId(1)))
const judge = { model: 'judge-2025-01-01', seed: 11 }
let server: FakeOpenAI

before(async () => {
  server = await startFakeOpenAI({ script: [] })
})
after(() => server.close())

function client(metrics = new JudgeMetrics(), sleeps: number[] = []) {
  return new JudgeClient(
    {
      baseUrl: server.baseURL,
      apiKey: 'test',
      timeoutMs: 10_000,
      maxRetries: 3,
      backoff: { baseMs: 100, maxMs: 5_000 },
      prices: { 'judge-2025-01-01': { input: 2, output: 8 } },
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0.5,
    },
    metrics,
  )
}

test('asks with temperature 0, the seed and the verdict schema, and returns the verdict with its cost', async () => {
  server.requests.length = 0
  server.setScript((r) => verdict(r, 4))
  const out = await client().judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(out.ok)
  assert.equal(out.verdict.score, 4)
  assert.deepEqual(out.verdict.evidence[0], { turn: 2, span_id: 'a000000000000002', quote: 'Where is my order A1?' })
  assert.deepEqual(out.usage, { inputTokens: 1000, outputTokens: 100 })
  assert.equal(out.costUsd, (1000 * 2 + 100 * 8) / 1e6)
  const body = server.requests[0]!.body
  assert.equal(body.temperature, 0)
  assert.equal(body.seed, 11)
  assert.equal(body.model, 'judge-2025-01-01')
  assert.deepEqual(body.response_format, { type: 'json_schema', json_schema: { name: 'verdict', strict: true, schema: VERDICT_JSON_SCHEMA } })
  assert.deepEqual(Object.keys((VERDICT_JSON_SCHEMA as { properties: object }).properties), ['evidence', 'reasoning', 'score'])
})

test('a model server closing the connection as Node pools the socket is not thrown into the scorer', async () => {
  // The judge runs in the scorer's process (and in sieve up's): an uncaught socket error would stop it.
  server.setScript((r) => verdict(r, 4))
  const probe = probePoolingWindow()
  try {
    const out = await client().judgeDimension(judge, rubric, accuracy, transcript)
    assert.ok(out.ok)
    assert.equal(probe.raised(), 1)
    assert.deepEqual(probe.escaped, [])
  } finally {
    probe.stop()
  }
})

test('an invalid answer is retried once and a valid second answer is used', async () => {
  const metrics = new JudgeMetrics()
  server.requests.length = 0
  let n = 0
  server.setScript((r) => (n++ === 0 ? say('I would give it a 4') : verdict(r, 3)))
  const out = await client(metrics).judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(out.ok)
  assert.equal(out.verdict.score, 3)
  assert.equal(server.requests.length, 2)
  assert.equal(metrics.total('invalid_answer_retries'), 1)
})

test('two invalid answers become an INVALID_ANSWER error, not a score', async () => {
  const metrics = new JudgeMetrics()
  server.requests.length = 0
  server.setScript((r) =>
    r.index % 2 === 0
      ? say(JSON.stringify({ evidence: [{ turn: 1, span_id: 'a000000000000002', quote: '' }], reasoning: 'x', score: 9 }))
      : say(JSON.stringify({ evidence: [{ turn: 1, span_id: 'ffffffffffffffff', quote: '' }], reasoning: 'x', score: 2 })),
  )
  const out = await client(metrics).judgeDimension(judge, rubric, accuracy, transcript)
  assert.equal(out.ok, false)
  assert.ok(!out.ok && out.error.code === 'INVALID_ANSWER')
  assert.ok(!out.ok && /span ffffffffffffffff, which is not in the trace|outside 1..5/.test(out.error.message))
  assert.equal(server.requests.length, 2)
  assert.ok(out.usage.inputTokens > 0, 'tokens of invalid answers still count towards spend')
})

test('a response body that is not JSON counts as an invalid answer: retried once, then an error', async () => {
  const metrics = new JudgeMetrics()
  let n = 0
  server.setScript((r) => (n++ === 0 ? malformed() : verdict(r, 5)))
  const out = await client(metrics).judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(out.ok && out.verdict.score === 5)
  server.setScript(() => malformed())
  const failed = await client(metrics).judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(!failed.ok && failed.error.code === 'INVALID_ANSWER' && /not JSON/.test(failed.error.message))
})

test('429 and 500 are retried with backoff honouring retry-after, and counted as retries', async () => {
  const metrics = new JudgeMetrics()
  const sleeps: number[] = []
  let n = 0
  server.setScript((r) => (n++ === 0 ? failWith(429, { retryAfterSeconds: 2 }) : n === 2 ? failWith(503) : verdict(r, 4)))
  const out = await client(metrics, sleeps).judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(out.ok && out.verdict.score === 4)
  assert.equal(metrics.get('retries{status=429}'), 1)
  assert.equal(metrics.get('retries{status=503}'), 1)
  // attempt 0 honours retry-after (2 s over a 50 ms jittered delay); attempt 1 is 0.5 × 200 ms.
  assert.deepEqual(sleeps, [2000, 100])
})

test('a provider outage outlasting the retries is a PROVIDER_UNAVAILABLE error, never a score', async () => {
  const metrics = new JudgeMetrics()
  server.requests.length = 0
  server.setScript(() => failWith(500))
  const out = await client(metrics).judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(!out.ok && out.error.code === 'PROVIDER_UNAVAILABLE')
  assert.equal(server.requests.length, 4)
  assert.equal(metrics.total('retries'), 3)
})

test('a refused request (400) is not retried', async () => {
  server.requests.length = 0
  server.setScript(() => failWith(400, { message: 'unknown model' }))
  const out = await client().judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(!out.ok && out.error.code === 'REQUEST_REJECTED' && /unknown model/.test(out.error.message))
  assert.equal(server.requests.length, 1)
})

test('a judge slower than the timeout is retried like a network error, then PROVIDER_UNAVAILABLE', async () => {
  const metrics = new JudgeMetrics()
  server.requests.length = 0
  server.setScript((r) => verdict(r, 4, { delayMs: 400 }))
  const slow = new JudgeClient({ baseUrl: server.baseURL, apiKey: 'k', timeoutMs: 50, maxRetries: 1, backoff: { baseMs: 1, maxMs: 1 }, prices: {} }, metrics)
  const out = await slow.judgeDimension(judge, rubric, accuracy, transcript)
  assert.ok(!out.ok && out.error.code === 'PROVIDER_UNAVAILABLE', !out.ok ? out.error.message : 'scored')
  assert.equal(metrics.get('retries{status=network}'), 1)
  assert.equal(server.requests.length, 2)
})
