import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { after, before, test } from 'node:test'
import { conversationOf, genAiFields, readTrace } from '@sieve/core'
import { goAgent, javaAgent } from '@sieve/testkit'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * The OpenTelemetry SDKs of other languages, as services use them: the Go and Java SDKs' own
 * OTLP/HTTP protobuf exporters (testkit/agents/go, /java), set up only by the standard
 * OTEL_EXPORTER_OTLP_* variables, with and without gzip, with an API key in the headers. Their exit
 * means the export succeeded, and a 200 means stored, so the trace is read at once: under the key's
 * project, every attribute type as sent, the conversation and session read from it.
 */

let sieve: RunningSieve
const KEYS = new Map([
  ['k-go', 'go-agents'],
  ['k-java', 'java-agents'],
])

before(async () => {
  sieve = await startSieve({ apiKeys: KEYS })
})
after(async () => {
  await sieve?.stop()
})

for (const [language, agent] of [
  ['go', goAgent()],
  ['java', javaAgent()],
] as const) {
  for (const compression of ['gzip', 'none']) {
    test(`${language} SDK over OTLP/HTTP protobuf, compression ${compression}: the turn stored whole under the key's project`, {
      skip: agent.skip,
      timeout: 300_000,
    }, async () => {
      const [program, ...args] = agent.command()
      // Asynchronously: the collector answering it runs in this process.
      const run = await promisify(execFile)(program!, args, {
        encoding: 'utf8',
        timeout: 120_000,
        env: {
          ...process.env,
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${sieve.url}/v1/traces`,
          // Percent-encoded, as the specification has header values written.
          OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20k-${language}`,
          OTEL_EXPORTER_OTLP_COMPRESSION: compression,
          OTEL_SERVICE_NAME: `${language}-agent`,
        },
      })
      const traceId = run.stdout.trim()
      const trace = await readTrace(sieve.storage, `${language}-agents`, traceId)
      assert.ok(trace, `trace ${traceId} stored under project ${language}-agents`)
      assert.equal(await readTrace(sieve.storage, 'default', traceId), undefined, 'and under no other project')

      const byName = new Map(trace.spans.map((s) => [s.name, s]))
      assert.deepEqual([...byName.keys()].sort(), ['chat gpt-4o', 'execute_tool lookup_order', 'invoke_agent support'])
      const agentSpan = byName.get('invoke_agent support')!
      const chat = byName.get('chat gpt-4o')!
      assert.equal(agentSpan.parentSpanId, '')
      assert.equal(chat.parentSpanId, agentSpan.spanId)
      assert.equal(byName.get('execute_tool lookup_order')!.parentSpanId, agentSpan.spanId)
      assert.deepEqual([agentSpan.kind, chat.kind], ['SERVER', 'CLIENT'])
      assert.equal(agentSpan.resource['service.name'], `${language}-agent`)
      assert.deepEqual([chat.scope.name, chat.scope.version], [`sieve.test.${language}-agent`, '1.0.0'])
      assert.deepEqual(
        ['gen_ai.usage.input_tokens', 'gen_ai.request.temperature', 'gen_ai.request.stream', 'gen_ai.response.finish_reasons', 'example.ints'].map(
          (k) => chat.attributes[k],
        ),
        [42, 0.25, false, ['tool_calls'], [1, -2, '9007199254740993']],
      )

      assert.equal(genAiFields(agentSpan).sessionId, `${language}-session-1`)
      assert.deepEqual(genAiFields(chat).inputTokens, 42)
      const turns = conversationOf([trace]).turns.map((t) => `${t.role}${t.name ? ` ${t.name}` : ''}: ${t.text}`)
      assert.deepEqual(turns, ['user: Where is order A-1?', 'tool_call lookup_order: {"order_id":"A-1"}'])
    })
  }
}
