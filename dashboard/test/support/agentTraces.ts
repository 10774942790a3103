import { SpanKind, SpanStatusCode, context, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

/**
 * Support-agent traces sent over real OTLP/protobuf by the OpenTelemetry SDK: a root invoke_agent
 * span, an order lookup tool call and a chat call. A `truncated` run stops with finish_reason
 * `length`, which the scorer's truncation check fails.
 */
export async function sendAgentRuns(endpoint: string, version: string, runs: { question: string; truncated: boolean }[]): Promise<string[]> {
  const exporter = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` })
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'support-agent', 'service.version': version }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  })
  const tracer = provider.getTracer('dashboard-e2e', '1.0.0')
  const ids: string[] = []
  for (const run of runs) {
    const root = tracer.startSpan('invoke_agent support', {
      kind: SpanKind.INTERNAL,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': 'support',
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: run.question }] }]),
      },
    })
    ids.push(root.spanContext().traceId)
    const ctx = trace.setSpan(context.active(), root)
    const tool = tracer.startSpan('execute_tool lookup_order', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.arguments': '{"order_id":"A-1001"}', 'gen_ai.tool.call.result': '{"status":"shipped"}' } }, ctx)
    tool.end()
    const answer = run.truncated ? 'Your order A-1001 has shipped and should arrive by' : 'Your order A-1001 has shipped and arrives on Tuesday.'
    const chat = tracer.startSpan('chat gpt-4o', {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-4o-2024-08-06',
        'gen_ai.response.model': 'gpt-4o-2024-08-06',
        'gen_ai.usage.input_tokens': 420,
        'gen_ai.usage.output_tokens': run.truncated ? 16 : 14,
        'gen_ai.response.finish_reasons': [run.truncated ? 'length' : 'stop'],
        'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: run.question }] }]),
        'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: run.truncated ? 'length' : 'stop' }]),
      },
    }, ctx)
    chat.setStatus({ code: SpanStatusCode.OK })
    chat.end()
    root.setAttribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }] }]))
    root.end()
  }
  await provider.forceFlush()
  await provider.shutdown()
  return ids
}
