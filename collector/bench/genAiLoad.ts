import { randomBytes } from 'node:crypto'
import type { Span } from '@sieve/core'

/**
 * Synthetic agent traffic for the benchmarks: each trace is an agent run (root span) with LLM
 * calls carrying ~1 KB of prompt text and tool calls, attributes as the GenAI conventions name them.
 */
const PROMPT = 'You are a support agent for an online bookshop. Answer politely and cite the order. '.repeat(13).slice(0, 1024)
const hex = (bytes: number): string => randomBytes(bytes).toString('hex')

export function agentTrace(projectId: string, spansPerTrace: number, startNs: bigint): Span[] {
  const traceId = hex(16)
  const rootId = hex(8)
  const resource = { 'service.name': 'support-agent', 'service.version': '1.4.2', 'deployment.environment.name': 'prod' }
  const base = (spanId: string, parent: string, name: string, offset: bigint, attributes: Span['attributes']): Span => ({
    projectId, traceId, spanId, parentSpanId: parent, traceState: '', name, kind: parent ? 'CLIENT' : 'INTERNAL',
    startTimeUnixNano: (startNs + offset).toString(), endTimeUnixNano: (startNs + offset + 1_234_567n).toString(),
    status: { code: 'UNSET', message: '' }, flags: 1, serviceName: 'support-agent',
    scope: { name: 'sieve-bench', version: '0.1.0', attributes: {} }, attributes, resource,
    events: [], links: [], droppedAttributesCount: 0, droppedEventsCount: 0, droppedLinksCount: 0,
  })
  const spans: Span[] = [base(rootId, '', 'invoke_agent support', 0n, {
    'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'gen_ai.conversation.id': hex(8), 'user.id': 'u-42',
  })]
  for (let i = 1; i < spansPerTrace; i++) {
    const offset = BigInt(i) * 2_000_000n
    spans.push(i % 3 === 0
      ? base(hex(8), rootId, 'execute_tool lookup_order', offset, {
          'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'lookup_order', 'gen_ai.tool.call.id': hex(6),
        })
      : base(hex(8), rootId, 'chat gpt-4o-mini', offset, {
          'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.usage.input_tokens': 412, 'gen_ai.usage.output_tokens': 96,
          'gen_ai.request.temperature': 0.2, 'sieve.prompt.version': 'v7',
          'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }]),
        }))
  }
  return spans
}

export function agentSpans(projectId: string, count: number, spansPerTrace = 8): Span[] {
  const spans: Span[] = []
  let start = BigInt(Date.now()) * 1_000_000n
  while (spans.length < count) {
    spans.push(...agentTrace(projectId, spansPerTrace, start).slice(0, count - spans.length))
    start += 50_000_000n
  }
  return spans
}
