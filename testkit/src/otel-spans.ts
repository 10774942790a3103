import { SpanKind, SpanStatusCode, TraceFlags, context, trace } from '@opentelemetry/api'
import { TraceState } from '@opentelemetry/core'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/**
 * Spans made by the real OpenTelemetry SDK, covering every field OTLP carries: nesting, kinds,
 * status, events, links, trace state, a remote parent, dropped counts, resource and scope
 * attributes, and every AnyValue type.
 */
export const REMOTE_PARENT = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceState: 'vendor=abc,other=1' }
export const SCOPE_ATTRIBUTES = { 'scope.kind': 'test', 'scope.level': 3 }

export async function otelSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent', 'service.version': '1.4.0', 'host.cores': 2 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
    spanLimits: { attributeCountLimit: 8, eventCountLimit: 2, linkCountLimit: 1 },
  })
  const tracer = provider.getTracer('sieve-tests', '0.9.1')
  const remote = trace.setSpanContext(context.active(), {
    traceId: REMOTE_PARENT.traceId,
    spanId: REMOTE_PARENT.spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
    traceState: new TraceState(REMOTE_PARENT.traceState),
  })
  const root = tracer.startSpan(
    'invoke_agent support',
    { kind: SpanKind.SERVER, attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' } },
    remote,
  )
  const rootContext = trace.setSpan(context.active(), root)
  const chat = tracer.startSpan(
    'chat gpt-4o',
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-4o',
        'gen_ai.usage.input_tokens': 1234,
        'gen_ai.request.temperature': 0.25,
        'gen_ai.response.finish_reasons': ['stop', 'length'],
        streaming: false,
        'negative.int': -42,
      },
      links: [{ context: root.spanContext(), attributes: { 'link.reason': 'retry-of', attempt: 2 } }],
    },
    rootContext,
  )
  chat.addEvent('gen_ai.choice', { index: 0, 'finish.reason': 'stop' })
  chat.addEvent('no attributes')
  chat.addEvent('over the event limit')
  chat.addLink({ context: { ...root.spanContext(), spanId: '1111111111111111' } })
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited upstream' })
  chat.end()
  const tool = tracer.startSpan('execute_tool lookup', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.tool.name': 'lookup' } }, rootContext)
  for (let i = 0; i < 10; i++) tool.setAttribute(`lookup.arg.${i}`, i) // 3 past the limit of 8
  tool.setStatus({ code: SpanStatusCode.OK })
  tool.end()
  root.end()
  await provider.forceFlush()
  const spans = exporter.getFinishedSpans()
  // The API only takes primitives and arrays; OTLP also carries maps and bytes, which the exporters serialize.
  const extra = spans[0]!.attributes as Record<string, unknown>
  extra['gen_ai.tool.definitions'] = { name: 'lookup', params: { required: ['id'], strict: true } }
  extra['payload.bytes'] = new Uint8Array([0, 1, 2, 250, 255])
  Object.assign(spans[0]!.instrumentationScope, { attributes: SCOPE_ATTRIBUTES })
  await provider.shutdown()
  return spans
}
