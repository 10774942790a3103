import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { conversationOf, genAiFields, readTrace, type Trace } from '@sieve/core'
import { resolveChecksConfig, scoreTrace } from '@sieve/scoring'
import { callTools, pythonAgents, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * Python agents instrumented by OpenInference, by OpenLLMetry (Traceloop) and by OpenTelemetry's own
 * GenAI instrumentation around the Python openai client, exporting OTLP/HTTP protobuf to the real
 * collector: the two-turn conversation, model, tokens and checks come out as for an SDK trace. The
 * instrumentations live in .cache/python (.ci/run installs testkit/agents/python/requirements.txt there).
 */

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const { python: PYTHON, skip } = pythonAgents()
const AGENT = `${ROOT}testkit/agents/python/openai_agent.py`

let sieve: RunningSieve
let model: FakeOpenAI

before(async () => {
  if (skip) return
  sieve = await startSieve()
  model = await startFakeOpenAI({ script: [] })
})
after(async () => {
  await model?.close()
  await sieve?.stop()
})

const REFUNDED = 'Refunded A-1. A receipt goes to billing@acme-refunds.example.'
const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: ['process_refund'] } } })

/** Each agent run: the instrumentation, and what it needs set to record the messages (content is opt-in everywhere). */
const RUNS: Record<string, { instrumentation: string; env: Record<string, string> }> = {
  openinference: { instrumentation: 'openinference', env: {} },
  openllmetry: { instrumentation: 'openllmetry', env: {} },
  // OpenTelemetry's own records no content unless told where: on the span, or as a log record of the
  // call (`gen_ai.client.inference.operation.details`), which Sieve joins to the span.
  'otel, messages on the span': {
    instrumentation: 'otel',
    env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'span_only' },
  },
  'otel, messages as log records': {
    instrumentation: 'otel',
    env: { OTEL_SEMCONV_STABILITY_OPT_IN: 'gen_ai_latest_experimental', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'event_only' },
  },
}

function runAgent(run: string): Promise<void> {
  const { instrumentation, env: settings } = RUNS[run]!
  return new Promise((resolve, reject) => {
    const env = { ...process.env, ...settings, MODEL_BASE_URL: model.baseURL, OTEL_EXPORTER_OTLP_ENDPOINT: sieve.url, SERVICE_NAME: `support-${run}` }
    const child = spawn(PYTHON, [AGENT, instrumentation], { env, stdio: ['ignore', 'inherit', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('close', (code) => {
      clearTimeout(timer)
      code === 0 ? resolve() : reject(new Error(`python agent exited ${code}: ${stderr.slice(-2000)}`))
    })
  })
}

/** The service's traces as stored, in start order. */
async function stored(service: string): Promise<Trace[]> {
  const rows = await (
    await sieve.storage.query({
      query: `SELECT trace_id FROM spans FINAL WHERE service_name = {service:String} GROUP BY trace_id ORDER BY min(start_time)`,
      query_params: { service },
      format: 'JSONEachRow',
    })
  ).json<{ trace_id: string }>()
  return Promise.all(rows.map(async (r) => (await readTrace(sieve.storage, 'default', r.trace_id))!))
}

for (const run of Object.keys(RUNS)) {
  test(`Python openai client under ${run}: the conversation, model, tokens and checks`, { skip }, async () => {
    model.setScript([
      callTools([{ id: 'call_1', name: 'process_refund', arguments: { order_id: 'A-1' } }], { usage: { inputTokens: 40, outputTokens: 9 } }),
      say(REFUNDED, { usage: { inputTokens: 61, outputTokens: 14 } }),
      say('Within five business days.', { usage: { inputTokens: 80, outputTokens: 6 } }),
    ])
    await runAgent(run)
    const traces = await stored(`support-${run}`)
    assert.equal(traces.length, 2, 'one trace per turn')
    const turns = conversationOf(traces).turns.map(
      (t) => `${t.role}${t.name ? ` ${t.name}` : ''}: ${t.role.startsWith('tool') ? JSON.stringify(JSON.parse(t.text)) : t.text}`,
    )
    assert.deepEqual(turns, [
      'system: You are the support agent of Acme.',
      'user: Hi, I am ann@example.com. Please refund order A-1.',
      'tool_call process_refund: {"order_id":"A-1"}',
      'tool_result process_refund: {"order_id":"A-1","status":"refunded"}',
      `assistant: ${REFUNDED}`,
      'user: Thanks! When will I see the money?',
      'assistant: Within five business days.',
    ])
    const calls = traces[0]!.spans.map(genAiFields).filter((f) => f.operation === 'chat')
    assert.deepEqual(calls.map((f) => [f.requestModel, f.inputTokens, f.outputTokens]).sort(), [
      ['gpt-4o-mini', 40, 9],
      ['gpt-4o-mini', 61, 14],
    ])
    const failed = scoreTrace(traces[0]!, checks)
      .results.filter((r) => !r.passed)
      .map((r) => r.name)
    assert.ok(failed.includes('prohibited_tools') && failed.includes('pii_echo'), `failed: ${failed.join(', ')}`)
  })
}
