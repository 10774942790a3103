import type { Attributes, Span, Trace } from '@sieve/core'
import { blankSpan } from './span-builders.js'

let clock = 1_700_000_000_000_000_000n

export function supportSpan(traceId: string, spanId: string, fields: Partial<Span> & { attributes?: Attributes } = {}): Span {
  clock += 1_000_000n
  return blankSpan({
    traceId,
    spanId,
    startTimeUnixNano: String(clock),
    endTimeUnixNano: String(clock + 500_000n),
    serviceName: 'support-bot',
    ...fields,
  })
}

export const numberedTraceId = (n: number) => n.toString(16).padStart(32, '0')

export interface SupportConversationOptions {
  user?: string
  toolError?: boolean
  extraUserTurns?: number
  attributes?: Attributes
  agentVersion?: string
}

/** A support conversation: an agent span, an LLM call, a tool call, a final LLM call. */
export function supportConversation(id: string, o: SupportConversationOptions = {}): Trace {
  const resource: Attributes = { 'service.name': 'support-bot', ...(o.agentVersion ? { 'service.version': o.agentVersion } : {}) }
  const common = { resource, ...(o.user ? {} : {}) }
  const userAttr: Attributes = o.user ? { 'user.id': o.user } : {}
  const history = [{ role: 'user', parts: [{ type: 'text', content: 'Where is my order A1? It is late and I need it for a birthday.' }] }]
  for (let i = 0; i < (o.extraUserTurns ?? 0); i++) history.push({ role: 'user', parts: [{ type: 'text', content: `Any news? (${i + 1})` }] })
  const root = supportSpan(id, 'a000000000000001', {
    ...common,
    name: 'invoke_agent support',
    attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', ...userAttr, ...o.attributes },
  })
  const llm1 = supportSpan(id, 'a000000000000002', {
    ...common,
    parentSpanId: root.spanId,
    name: 'chat gpt-4o-2024-08-06',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 20,
      'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'You are the support agent of Acme. Refunds only within 30 days.' }]),
      'gen_ai.input.messages': JSON.stringify(history),
      'gen_ai.output.messages': JSON.stringify([
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'check_order_status', arguments: { order_id: 'A1' } }], finish_reason: 'tool_call' },
      ]),
    },
  })
  const tool = supportSpan(id, 'a000000000000003', {
    ...common,
    parentSpanId: root.spanId,
    name: 'execute_tool check_order_status',
    status: o.toolError ? { code: 'ERROR', message: 'order service timeout' } : { code: 'OK', message: '' },
    attributes: {
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'check_order_status',
      'gen_ai.tool.call.arguments': '{"order_id":"A1"}',
      ...(o.toolError ? { 'error.type': 'timeout' } : { 'gen_ai.tool.call.result': '{"status":"shipped","eta":"tomorrow"}' }),
    },
  })
  const llm2 = supportSpan(id, 'a000000000000004', {
    ...common,
    parentSpanId: root.spanId,
    name: 'chat gpt-4o-2024-08-06',
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': 200,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.input.messages': JSON.stringify([
        ...history,
        { role: 'tool', parts: [{ type: 'tool_call_response', id: 'c1', response: { status: 'shipped', eta: 'tomorrow' } }] },
      ]),
      'gen_ai.output.messages': JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: 'Sorry for the wait! Order A1 has shipped and arrives tomorrow, in time for the birthday.' }],
          finish_reason: 'stop',
        },
      ]),
    },
  })
  return { projectId: 'default', traceId: id, spans: [root, llm1, tool, llm2], complete: true }
}

const USER_TRACE_BASE = 1_760_000_000_000_000_000n
const SECOND = 1_000_000_000n

/** A support conversation of `user` in project `project` whose earliest span starts `at` seconds after a fixed instant. */
export function supportUserTrace(project: string, id: string, user: string | undefined, at: bigint): Trace {
  const trace = supportConversation(id, user ? { user } : {})
  const first = trace.spans.reduce((m, s) => (BigInt(s.startTimeUnixNano) < m ? BigInt(s.startTimeUnixNano) : m), BigInt(trace.spans[0]!.startTimeUnixNano))
  const shift = USER_TRACE_BASE + at * SECOND - first
  trace.projectId = project
  for (const s of trace.spans) {
    s.projectId = project
    s.startTimeUnixNano = String(BigInt(s.startTimeUnixNano) + shift)
    s.endTimeUnixNano = String(BigInt(s.endTimeUnixNano) + shift)
  }
  return trace
}
