// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { readTrace } from '@sieve/core'
import { flush, init, shutdown } from '@sieve/sdk'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { resolveChecksConfig, scoreTrace, type TraceScore } from '../src/index.js'
import { runSupportAgent } from '../../sdk/examples/support-agent/run.js'
import { startSupportModel } from '../../testkit/agents/support-model.js'

/*
 * The SDK's example support agent, answered by the testkit's scripted model, traced with @sieve/sdk
 * into the real collector and storage, read back and scored: the path `sieve score` takes.
 */
let sieve: RunningSieve
let model: Awaited<ReturnType<typeof startSupportModel>>
before(async () => {
  ;[sieve, model] = await Promise.all([startSieve(), startSupportModel()])
  const sdk = init({ endpoint: sieve.url, serviceName: 'support-agent', agentVersion: 'v12', captureContent: true })
  assert.ok(sdk.ok)
})
after(async () => {
  await shutdown()
  await Promise.all([sieve.stop(), model.close()])
})

const checks = resolveChecksConfig({
  agents: {
    'support-agent': {
      required_tools: { tools: ['check_order_status', 'lookup_customer_history'] },
      prohibited_tools: { tools: ['process_refund'] },
    },
  },
})

async function scoredRun(broken: boolean): Promise<{ score: TraceScore; refundSpan?: string }> {
  const run = await runSupportAgent({ broken, baseURL: model.env.OPENAI_BASE_URL, apiKey: model.env.OPENAI_API_KEY })
  await flush()
  const traceId = run.turns[0]!.traceId
  // The ingester stores asynchronously after the collector acknowledged the export.
  let trace = await readTrace(sieve.storage, 'default', traceId)
  for (let i = 0; i < 100 && !trace?.complete; i++) {
    await new Promise((r) => setTimeout(r, 50))
    trace = await readTrace(sieve.storage, 'default', traceId)
  }
  assert.ok(trace?.complete, `trace ${traceId} not stored`)
  const refundSpan = trace.spans.find((s) => s.attributes['gen_ai.tool.name'] === 'process_refund')?.spanId
  return { score: scoreTrace(trace, checks), refundSpan }
}

test('the SDK-traced agent refunding outside policy fails prohibited_tools at the process_refund span', async () => {
  const { score, refundSpan } = await scoredRun(true)
  assert.equal(score.profile, 'support-agent')
  assert.deepEqual(
    score.results.filter((r) => !r.passed).map((r) => r.name),
    ['prohibited_tools'],
  )
  const check = score.results.find((r) => r.name === 'prohibited_tools')!
  assert.ok(refundSpan)
  assert.deepEqual(check.detail.violations, [
    { spanId: refundSpan, tool: 'process_refund', arguments: { order_id: 'A-1001', amount: 89.9 }, rule: 'process_refund' },
  ])
})

test('the SDK-traced agent following the policy passes every check', async () => {
  const { score } = await scoredRun(false)
  assert.deepEqual(
    score.results.filter((r) => !r.passed).map((r) => `${r.name}: ${r.detail.message}`),
    [],
  )
  assert.ok(score.results.some((r) => r.name === 'tool_call_validity'))
})
