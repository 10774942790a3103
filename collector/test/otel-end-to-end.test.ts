// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { SpanKind, SpanStatusCode, context, trace, type HrTime } from '@opentelemetry/api'
import { OTLPTraceExporter as OTLPHttpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as OTLPProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { SPAN_KINDS, STATUS_CODES, type Span } from '@sieve/core'
import type { RunningServer } from '@sieve/http'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { exampleOtlpTrace } from '@sieve/testkit/otlp'

let storage: Storage
let ingester: RunningSieve['ingester']
let stop: () => Promise<void>
let server: RunningServer
const API_KEY = 'e2e-key'

before(async () => {
  ;({ storage, ingester, server, stop } = await startSieve({ apiKeys: new Map([[API_KEY, 'agents']]), maxBodyBytes: 4 << 20 }))
})

after(() => stop())

// Explicit times with every nanosecond digit set, so any rounding shows.
const T0 = 1_760_000_000
const at = (ms: number, ns: number): HrTime => [T0 + Math.floor(ms / 1000), (ms % 1000) * 1_000_000 + ns]
const nanos = (t: HrTime): string => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString()

/** An agent run: root → chat (events, link, error) → tool, exported by the real SDK through `exporter`. */
async function exportAgentRun(exporter: SpanExporter): Promise<ReadableSpan[]> {
  const memory = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'booking-agent', 'service.version': '3.1.0', 'deployment.environment.name': 'staging' }),
    spanProcessors: [new SimpleSpanProcessor(memory), new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('sieve-e2e', '1.2.3')
  const root = tracer.startSpan('invoke_agent booking', {
    kind: SpanKind.SERVER,
    startTime: at(0, 123_457),
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'booking', 'gen_ai.conversation.id': 'conv-7', 'user.id': 'u-9' },
  })
  const rootContext = trace.setSpan(context.active(), root)
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      startTime: at(10, 987_654_321 % 1_000_000),
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 1234,
        'gen_ai.usage.output_tokens': 56,
        'gen_ai.request.temperature': 0.25,
        'gen_ai.response.finish_reasons': ['stop'],
        'gen_ai.request.stream': false,
        'sieve.prompt.version': 'booking-v3',
      },
      links: [{ context: root.spanContext(), attributes: { 'link.reason': 'retry-of' } }],
    },
    rootContext,
  )
  chat.addEvent('gen_ai.choice', { index: 0, 'finish.reason': 'stop' }, at(500, 1))
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited upstream' })
  chat.end(at(900, 999_999))
  const tool = tracer.startSpan(
    'execute_tool search_flights',
    {
      kind: SpanKind.INTERNAL,
      startTime: at(901, 7),
      attributes: { 'gen_ai.tool.name': 'search_flights', 'gen_ai.tool.call.id': 'call-1' },
    },
    trace.setSpan(context.active(), chat),
  )
  tool.setStatus({ code: SpanStatusCode.OK })
  tool.end(at(950, 11))
  root.end(at(1000, 5))
  await provider.forceFlush()
  const spans = memory.getFinishedSpans()
  await provider.shutdown()
  return spans
}

/** What Sieve must have stored for a span the SDK made. */
function expected(span: ReadableSpan): Partial<Span> {
  return {
    projectId: 'agents',
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId ?? '',
    name: span.name,
    kind: SPAN_KINDS[span.kind + 1],
    startTimeUnixNano: nanos(span.startTime),
    endTimeUnixNano: nanos(span.endTime),
    status: { code: STATUS_CODES[span.status.code] as Span['status']['code'], message: span.status.message ?? '' },
    serviceName: 'booking-agent',
    scope: { name: 'sieve-e2e', version: '1.2.3', attributes: {} },
    attributes: span.attributes as Span['attributes'],
    events: span.events.map((e) => ({
      timeUnixNano: nanos(e.time),
      name: e.name,
      attributes: (e.attributes ?? {}) as Span['attributes'],
      droppedAttributesCount: 0,
    })),
    links: span.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      traceState: '',
      attributes: (l.attributes ?? {}) as Span['attributes'],
      flags: l.context.traceFlags,
      droppedAttributesCount: 0,
    })),
  }
}

function flatten(nodes: (Span & { children: Span[] })[]): Span[] {
  return nodes.flatMap((n) => [n, ...flatten(n.children as (Span & { children: Span[] })[])])
}

async function readBack(traceId: string): Promise<{ tree: any; spans: Span[] }> {
  const res = await fetch(`${server.url}/api/traces/${traceId}`, { headers: { authorization: `Bearer ${API_KEY}` } })
  assert.equal(res.status, 200)
  const { trace: tree } = (await res.json()) as { trace: any }
  return { tree, spans: flatten(tree.roots) }
}

const exporters: [string, () => SpanExporter][] = [
  ['OTLP/HTTP JSON', () => new OTLPHttpJsonExporter({ url: `${server.url}/v1/traces`, headers: { authorization: `Bearer ${API_KEY}` } })],
  ['OTLP/HTTP protobuf', () => new OTLPProtoExporter({ url: `${server.url}/v1/traces`, headers: { 'x-api-key': API_KEY } })],
]

describe('OpenTelemetry SDK end to end', () => {
  for (const [name, makeExporter] of exporters) {
    test(`spans exported with ${name} read back field for field, through the read API and from ClickHouse`, async () => {
      const made = await exportAgentRun(makeExporter())
      assert.equal(made.length, 3)
      const traceId = made[0]!.spanContext().traceId
      const { tree, spans } = await readBack(traceId)

      // Nesting: root → chat → tool.
      assert.equal(tree.roots.length, 1)
      assert.equal(tree.roots[0].name, 'invoke_agent booking')
      assert.equal(tree.roots[0].children[0].name, 'chat gpt-4o')
      assert.equal(tree.roots[0].children[0].children[0].name, 'execute_tool search_flights')

      for (const sdkSpan of made) {
        const stored = spans.find((s) => s.spanId === sdkSpan.spanContext().spanId)
        assert.ok(stored, `span ${sdkSpan.name} stored`)
        const { children: _children, ...span } = stored as Span & { children?: unknown }
        // OTLP link flags carry the remote-parent bits (0x100, 0x200) above the W3C trace flags.
        span.links = span.links.map((l) => ({ ...l, flags: l.flags & 0xff }))
        const want = expected(sdkSpan)
        for (const [field, value] of Object.entries(want)) assert.deepEqual(span[field as keyof Span], value, `${sdkSpan.name}: ${field}`)
        assert.equal(span.resource['service.version'], '3.1.0')
        assert.equal(span.resource['deployment.environment.name'], 'staging')
        assert.equal(span.flags & 0xff, sdkSpan.spanContext().traceFlags)
      }

      const rows = await (
        await storage.query({
          query: `SELECT span_id, parent_span_id, toString(toUnixTimestamp64Nano(start_time)) AS start_ns,
            toString(toUnixTimestamp64Nano(end_time)) AS end_ns, duration_ns, gen_ai_operation, request_model, response_model,
            input_tokens, output_tokens, tool_name, agent_name, prompt_version, session_id, user_id, environment, project_id
          FROM spans FINAL WHERE trace_id = {traceId:String} ORDER BY start_time`,
          query_params: { traceId },
          format: 'JSONEachRow',
        })
      ).json<Record<string, string | number>>()
      const byStart = [...made].sort((a, b) => (BigInt(nanos(a.startTime)) < BigInt(nanos(b.startTime)) ? -1 : 1))
      assert.deepEqual(
        rows.map((r) => r.span_id),
        byStart.map((s) => s.spanContext().spanId),
      )
      const [rootRow, chatRow, toolRow] = rows
      assert.equal(rootRow!.start_ns, `${T0}000123457`)
      assert.equal(rootRow!.end_ns, `${T0 + 1}000000005`)
      assert.equal(String(rootRow!.duration_ns), '999876548')
      assert.equal(rootRow!.parent_span_id, '')
      assert.equal(chatRow!.parent_span_id, rootRow!.span_id)
      assert.equal(toolRow!.parent_span_id, chatRow!.span_id)
      assert.equal(rootRow!.project_id, 'agents')
      assert.deepEqual(
        [rootRow!.agent_name, rootRow!.session_id, rootRow!.user_id, rootRow!.environment, rootRow!.gen_ai_operation],
        ['booking', 'conv-7', 'u-9', 'staging', 'invoke_agent'],
      )
      assert.deepEqual(
        [
          chatRow!.gen_ai_operation,
          chatRow!.request_model,
          chatRow!.response_model,
          Number(chatRow!.input_tokens),
          Number(chatRow!.output_tokens),
          chatRow!.prompt_version,
        ],
        ['chat', 'gpt-4o', 'gpt-4o-2024-08-06', 1234, 56, 'booking-v3'],
      )
      assert.deepEqual([toolRow!.gen_ai_operation, toolRow!.tool_name], ['execute_tool', 'search_flights'])

      await ingester.flush()
      const list = await fetch(`${server.url}/api/traces?service=booking-agent&limit=100`, { headers: { 'x-api-key': API_KEY } })
      const summary = ((await list.json()) as { traces: Record<string, unknown>[] }).traces.find((t) => t.traceId === traceId)
      assert.ok(summary)
      assert.deepEqual(
        [summary.spanCount, summary.llmCallCount, summary.toolCallCount, summary.errorCount, summary.inputTokens, summary.rootName, summary.model],
        [3, 1, 1, 1, 1234, 'invoke_agent booking', 'gpt-4o-2024-08-06'],
      )
    })
  }

  test('the OTLP/JSON example (upper-case hex ids, every AnyValue kind, three resources) is accepted and read back', async () => {
    const example = exampleOtlpTrace()
    const res = await fetch(`${server.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': API_KEY }, body: example })
    assert.equal(res.status, 200, await res.text())
    const { tree, spans } = await readBack('9F3C2A7B41D8E6F05A1B2C3D4E5F6071'.toLowerCase())

    // The tree across services: agent → (chat, tool → orders-api server → producer with no service.name).
    const shape = (node: any): unknown => [node.name, node.serviceName, [...node.children].sort((a: any, b: any) => a.name.localeCompare(b.name)).map(shape)]
    assert.deepEqual(tree.roots.map(shape), [
      [
        'invoke_agent support',
        'support-agent',
        [
          ['chat gpt-4o', 'support-agent', []],
          ['execute_tool lookup_order', 'support-agent', [['GET /orders/{id}', 'orders-api', [['publish order.viewed', 'unknown_service', []]]]]],
        ],
      ],
    ])

    // Ids, times and parents as the document gives them, independently of the decoder.
    const sent = JSON.parse(example.toString('utf8')).resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans))
    assert.equal(spans.length, sent.length)
    for (const original of sent) {
      const span = spans.find((s) => s.spanId === original.spanId.toLowerCase())
      assert.ok(span, `span ${original.spanId} read back`)
      assert.equal(span.traceId, original.traceId.toLowerCase())
      assert.equal(span.name, original.name)
      assert.equal(span.startTimeUnixNano, String(original.startTimeUnixNano))
      assert.equal(span.endTimeUnixNano, String(original.endTimeUnixNano))
      assert.equal(span.parentSpanId, (original.parentSpanId ?? '').toLowerCase())
    }

    // Every AnyValue kind, through storage and the read API.
    const chat = spans.find((s) => s.name === 'chat gpt-4o')!
    assert.deepEqual(chat.attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 812,
      'gen_ai.usage.output_tokens': 95,
      'gen_ai.request.seed': '9007199254740993',
      'gen_ai.request.temperature': 0.2,
      'gen_ai.request.stream': false,
      'gen_ai.response.finish_reasons': ['tool_calls', 'stop'],
      'gen_ai.tool.definitions': { name: 'lookup_order', params: { required: ['order_id'], strict: true } },
      'example.mixed': ['a', -3, 1.5, true, null, []],
      'example.request_digest': '3q2+7w==',
      'example.placeholder': null,
    })
    assert.deepEqual([chat.kind, chat.status], ['CLIENT', { code: 'ERROR', message: 'rate limited, retried once' }])
    assert.deepEqual(chat.events, [
      {
        timeUnixNano: '1760000000600000000',
        name: 'retry',
        attributes: { 'http.response.status_code': 429, 'retry.delay_s': 0.25 },
        droppedAttributesCount: 1,
      },
    ])
    assert.deepEqual(
      chat.links.map((l) => [l.traceId, l.spanId, l.traceState, l.flags, l.attributes]),
      [['0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331', 'rojo=00f067aa0ba902b7', 769, { 'link.reason': 'previous turn' }]],
    )
    assert.equal(chat.droppedEventsCount, 2)
    assert.deepEqual(chat.scope, { name: 'sieve.example.agent', version: '1.2.0', attributes: { 'scope.team': 'support' } })
    assert.deepEqual(chat.resource, { 'service.name': 'support-agent', 'service.version': '2.3.0', 'host.cores': 4, 'deployment.environment.name': 'staging' })
    const root = spans.find((s) => s.name === 'invoke_agent support')!
    assert.deepEqual([root.traceState, root.flags, root.kind, root.status.code], ['sieve=r1,congo=t61rcWkgMzE', 257, 'SERVER', 'OK'])
  })
})

test('metrics sent to the same endpoint are a 404 that says Sieve takes traces and how to stop sending them', async () => {
  // An OpenTelemetry SDK pointed here with OTEL_EXPORTER_OTLP_ENDPOINT exports metrics too (Python's
  // auto-instrumentation and the Java agent by default): its log line is all its operator sees.
  const res = await fetch(`${server.url}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-protobuf', 'x-api-key': API_KEY },
    body: new Uint8Array(0),
  })
  assert.equal(res.status, 404)
  const { error } = (await res.json()) as { error: { message: string } }
  assert.equal(
    error.message,
    'POST /v1/metrics: Sieve receives OpenTelemetry traces (POST /v1/traces), not metrics; turn the metrics exporter off (OTEL_METRICS_EXPORTER=none) or send metrics elsewhere',
  )
  const other = await fetch(`${server.url}/v1/spans`, { method: 'POST', headers: { 'x-api-key': API_KEY } })
  assert.deepEqual([other.status, ((await other.json()) as { error: { message: string } }).error.message], [404, 'no route for POST /v1/spans'])
})
