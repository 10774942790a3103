import { context, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span as OtelSpan } from '@opentelemetry/api'
import { ProtobufLogsSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { decodeLogsRequest, decodeProtobufRequest } from '@sieve/otlp'
import { bySpanOf, type Span, type SpanEvent, type Trace } from '@sieve/core'

/**
 * Agent traces recorded with the real OpenTelemetry SDK, the way an instrumented agent emits them
 * (GenAI attributes, content as JSON text), then encoded as OTLP protobuf and decoded by the
 * collector: the scorer sees exactly what it sees in production.
 */
/**
 * Spans an OpenTelemetry SDK finished, as Sieve receives them: encoded as the SDK's OTLP/HTTP
 * protobuf exporter encodes them, decoded by the collector.
 */
export function asReceived(spans: ReadableSpan[], projectId = 'default'): Span[] {
  const decoded = decodeProtobufRequest(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!), projectId)
  if (decoded.rejected) throw new Error(`collector rejected test spans: ${decoded.errorMessage}`)
  return decoded.spans
}

/**
 * Log records an OpenTelemetry SDK emitted, as Sieve keeps them: encoded as its OTLP/HTTP protobuf
 * log exporter encodes them, the GenAI events read by the collector's decoder, by span (core's
 * withSpanLogEvents joins them to the traces).
 */
export function logEventsAsReceived(records: ReadableLogRecord[]): Map<string, SpanEvent[]> {
  return bySpanOf(decodeLogsRequest('protobuf', Buffer.from(ProtobufLogsSerializer.serializeRequest(records)!)).events)
}

/** Received spans grouped into traces, in the order their first span arrived. */
export function tracesOf(spans: Span[]): Trace[] {
  const byId = new Map<string, Trace>()
  for (const span of spans) {
    let trace = byId.get(span.traceId)
    if (!trace) byId.set(span.traceId, (trace = { projectId: span.projectId, traceId: span.traceId, spans: [], complete: false }))
    trace.spans.push(span)
  }
  for (const trace of byId.values()) trace.complete = trace.spans.some((s) => s.parentSpanId === '')
  return [...byId.values()]
}

export interface LlmStep {
  model?: string
  system?: string
  /** Earlier turns the agent sends its model before this turn's user text (a multi-turn conversation). */
  history?: { role: 'user' | 'assistant'; content: string }[]
  /** User text of this turn. */
  user?: string
  /** Tool results fed back to the model: call id → result. */
  toolResults?: { id: string; response: unknown }[]
  /** Assistant text. */
  text?: string
  toolCalls?: { id: string; name: string; arguments: unknown }[]
  finishReason?: string
  inputTokens?: number
  outputTokens?: number
  tools?: { name: string; parameters: unknown }[]
  outputType?: string
}

export interface ToolStep {
  name: string
  callId?: string
  arguments: unknown
  result?: unknown
  error?: string
}

export class AgentRecorder {
  private readonly exporter = new InMemorySpanExporter()
  private readonly provider: BasicTracerProvider
  private clockMs: number
  private current: { ctx: Context; span: OtelSpan } | undefined

  constructor(
    private readonly agentName: string,
    serviceName = agentName,
    startMs = Date.now() - 60_000,
  ) {
    this.clockMs = startMs
    this.provider = new BasicTracerProvider({
      resource: resourceFromAttributes({ 'service.name': serviceName, 'service.version': '1.0.0' }),
      spanProcessors: [new SimpleSpanProcessor(this.exporter)],
    })
  }

  /** Advances the recorded clock: spans get realistic, deterministic durations. */
  private tick(ms: number): number {
    this.clockMs += ms
    return this.clockMs
  }

  private get tracer() {
    return this.provider.getTracer('sieve-scorer-tests', '1.0.0')
  }

  /** Runs `body` inside an invoke_agent root span; `answer` is recorded as the agent's output. */
  agent(input: string, body: (r: this) => void, answer?: string, sessionId?: string): this {
    const span = this.tracer.startSpan(
      `invoke_agent ${this.agentName}`,
      {
        kind: SpanKind.INTERNAL,
        startTime: this.tick(0),
        attributes: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': this.agentName,
          ...(sessionId ? { 'gen_ai.conversation.id': sessionId } : {}),
          'gen_ai.provider.name': 'openai',
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: input }] }]),
        },
      },
      context.active(),
    )
    this.current = { ctx: trace.setSpan(context.active(), span), span }
    body(this)
    if (answer !== undefined) {
      span.setAttribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]))
    }
    span.end(this.tick(5))
    this.current = undefined
    return this
  }

  llm(step: LlmStep): this {
    const model = step.model ?? 'gpt-4o-mini-2024-07-18'
    const input: unknown[] = (step.history ?? []).map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))
    if (step.user) input.push({ role: 'user', parts: [{ type: 'text', content: step.user }] })
    for (const r of step.toolResults ?? []) input.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: r.id, response: r.response }] })
    const parts: unknown[] = []
    if (step.text !== undefined) parts.push({ type: 'text', content: step.text })
    for (const c of step.toolCalls ?? []) parts.push({ type: 'tool_call', id: c.id, name: c.name, arguments: c.arguments })
    const finishReason = step.finishReason ?? (step.toolCalls?.length ? 'tool_call' : 'stop')
    const attributes: Attributes = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': model,
      'gen_ai.response.model': model,
      'gen_ai.usage.input_tokens': step.inputTokens ?? 420,
      'gen_ai.usage.output_tokens': step.outputTokens ?? 60,
      'gen_ai.response.finish_reasons': [finishReason],
      'gen_ai.input.messages': JSON.stringify(input),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts, finish_reason: finishReason }]),
    }
    if (step.system) attributes['gen_ai.system_instructions'] = JSON.stringify([{ type: 'text', content: step.system }])
    if (step.tools)
      attributes['gen_ai.tool.definitions'] = JSON.stringify(step.tools.map((t) => ({ type: 'function', name: t.name, parameters: t.parameters })))
    if (step.outputType) attributes['gen_ai.output.type'] = step.outputType
    const span = this.tracer.startSpan(`chat ${model}`, { kind: SpanKind.CLIENT, startTime: this.tick(10), attributes }, this.current?.ctx)
    span.end(this.tick(800))
    return this
  }

  tool(step: ToolStep): this {
    const attributes: Attributes = {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': step.name,
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.arguments': typeof step.arguments === 'string' ? step.arguments : JSON.stringify(step.arguments),
    }
    if (step.callId) attributes['gen_ai.tool.call.id'] = step.callId
    if (step.result !== undefined) attributes['gen_ai.tool.call.result'] = JSON.stringify(step.result)
    const span = this.tracer.startSpan(`execute_tool ${step.name}`, { kind: SpanKind.INTERNAL, startTime: this.tick(5), attributes }, this.current?.ctx)
    if (step.error) {
      span.setAttribute('error.type', 'ToolError')
      span.setStatus({ code: SpanStatusCode.ERROR, message: step.error })
    }
    span.end(this.tick(120))
    return this
  }

  /** The recorded spans as an OTLP/HTTP protobuf request body, as the SDK's exporter sends it. */
  otlpProtobuf(): Buffer {
    return Buffer.from(ProtobufTraceSerializer.serializeRequest(this.exporter.getFinishedSpans())!)
  }

  /** The recorded spans, through OTLP protobuf and the collector's decoder. */
  spans(projectId = 'default'): Span[] {
    return asReceived(this.exporter.getFinishedSpans(), projectId)
  }

  trace(projectId = 'default'): Trace {
    const spans = this.spans(projectId)
    const traceIds = new Set(spans.map((s) => s.traceId))
    if (traceIds.size !== 1) throw new Error(`expected one trace, recorded ${traceIds.size}`)
    return { projectId, traceId: spans[0]!.traceId, spans, complete: true }
  }

  /** The span id of the n-th recorded span with this name (0-based), for exact detail assertions. */
  spanId(name: string, nth = 0): string {
    const ids = this.exporter
      .getFinishedSpans()
      .filter((s) => s.name === name)
      .map((s) => s.spanContext().spanId)
    const id = ids[nth]
    if (!id)
      throw new Error(
        `no span '${name}' #${nth} (have ${this.exporter
          .getFinishedSpans()
          .map((s) => s.name)
          .join(', ')})`,
      )
    return id
  }
}
