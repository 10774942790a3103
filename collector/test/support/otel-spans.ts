import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'

/**
 * Spans made by the real OpenTelemetry SDK, covering every field OTLP carries: nesting, kinds,
 * status, events, links, trace state, resource and scope attributes, and every AnyValue type.
 */
export async function otelSpans(): Promise<ReadableSpan[]> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent', 'service.version': '1.4.0', 'host.cores': 2 }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('sieve-tests', '0.9.1')
  const root = tracer.startSpan('invoke_agent support', {
    kind: SpanKind.SERVER,
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support' },
  })
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
  chat.setStatus({ code: SpanStatusCode.ERROR, message: 'rate limited upstream' })
  chat.end()
  const tool = tracer.startSpan('execute_tool lookup', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.tool.name': 'lookup' } }, rootContext)
  tool.setStatus({ code: SpanStatusCode.OK })
  tool.end()
  root.end()
  await provider.forceFlush()
  const spans = exporter.getFinishedSpans()
  // The API only takes primitives and arrays; OTLP also carries maps and bytes, which the exporters serialize.
  const extra = spans[0]!.attributes as Record<string, unknown>
  extra['gen_ai.tool.definitions'] = { name: 'lookup', params: { required: ['id'], strict: true } }
  extra['payload.bytes'] = new Uint8Array([0, 1, 2, 250, 255])
  await provider.shutdown()
  return spans
}
