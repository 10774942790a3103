import { SpanKind, context, trace } from '@opentelemetry/api'
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

/**
 * OTLP protobuf export requests as an instrumented agent sends them, made with the real
 * OpenTelemetry SDK: each trace is an agent run with LLM calls (~1 KB of prompt text each, GenAI
 * attributes) and tool calls; every request holds `spansPerRequest` spans.
 */
const PROMPT = 'You are a support agent for an online bookshop. Answer politely and cite the order. '.repeat(13).slice(0, 1024)

export async function otlpRequests(requests: number, spansPerRequest = 512, spansPerTrace = 8): Promise<Buffer[]> {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent', 'service.version': '1.4.2', 'deployment.environment.name': 'prod' }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('sieve-bench', '0.1.0')
  const payloads: Buffer[] = []
  for (let r = 0; r < requests; r++) {
    for (let made = 0; made < spansPerRequest; made += spansPerTrace) {
      const root = tracer.startSpan('invoke_agent support', {
        kind: SpanKind.INTERNAL,
        attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'gen_ai.conversation.id': `c-${r}-${made}`, 'user.id': 'u-42' },
      })
      const ctx = trace.setSpan(context.active(), root)
      for (let i = 1; i < Math.min(spansPerTrace, spansPerRequest - made); i++) {
        const child = i % 3 === 0
          ? tracer.startSpan('execute_tool lookup_order', { kind: SpanKind.INTERNAL, attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': `call-${i}` } }, ctx)
          : tracer.startSpan('chat gpt-4o-mini', {
              kind: SpanKind.CLIENT,
              attributes: {
                'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini',
                'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.usage.input_tokens': 412, 'gen_ai.usage.output_tokens': 96,
                'gen_ai.request.temperature': 0.2, 'gen_ai.response.finish_reasons': ['stop'], 'sieve.prompt.version': 'v7',
                'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }]),
              },
            }, ctx)
        child.end()
      }
      root.end()
    }
    const spans = exporter.getFinishedSpans()
    exporter.reset()
    payloads.push(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans) as Uint8Array))
  }
  await provider.shutdown()
  return payloads
}
