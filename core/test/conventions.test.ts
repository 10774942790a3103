import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toolInvocation } from '../src/content.js'
import { conversationOf, genAiFields, type Span } from '../src/index.js'

/** Attribute sets as each scheme's instrumentations write them (the ecosystem tests record real ones). */
function span(attributes: Span['attributes'], name = 'span'): Span {
  return {
    projectId: 'p',
    traceId: 'a'.repeat(32),
    spanId: 'b'.repeat(16),
    parentSpanId: '',
    traceState: '',
    name,
    kind: 'INTERNAL',
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000000000000001',
    status: { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: 's',
    scope: { name: '', version: '', attributes: {} },
    attributes,
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

test('OpenLLMetry: a traceloop tool span is a tool call with the entity kwargs as arguments; workflow names and association properties', () => {
  const tool = span({
    'traceloop.span.kind': 'tool',
    'traceloop.entity.name': 'process_refund',
    'traceloop.entity.input': '{"args":[],"kwargs":{"order_id":"A-1"}}',
    'traceloop.entity.output': '{"status":"refunded"}',
  })
  assert.equal(genAiFields(tool).operation, 'execute_tool')
  const call = toolInvocation(tool)
  assert.deepEqual([call.name, call.arguments, call.result], ['process_refund', { order_id: 'A-1' }, { status: 'refunded' }])
  const agent = span({
    'traceloop.span.kind': 'agent',
    'traceloop.entity.name': 'support',
    'traceloop.association.properties.session_id': 's-9',
    'traceloop.association.properties.user_id': 'u-9',
  })
  const f = genAiFields(agent)
  assert.deepEqual([f.operation, f.agentName, f.sessionId, f.userId], ['invoke_agent', 'support', 's-9', 'u-9'])
})

test('Vercel AI SDK: session, user and versions from the caller metadata (AI SDK 3-6) or runtime context (AI SDK 7)', () => {
  const old = genAiFields(
    span({
      'ai.operationId': 'ai.generateText',
      'ai.telemetry.functionId': 'support',
      'ai.telemetry.metadata.sessionId': 's-1',
      'ai.telemetry.metadata.userId': 'u-1',
      'ai.telemetry.metadata.promptVersion': 'p3',
    }),
  )
  assert.deepEqual([old.operation, old.agentName, old.sessionId, old.userId, old.promptVersion], ['invoke_agent', 'support', 's-1', 'u-1', 'p3'])
  const v7 = genAiFields(span({ 'ai.operationId': 'ai.streamText', 'ai.settings.context.sessionId': 's-2', 'ai.settings.context.userId': 'u-2' }))
  assert.deepEqual([v7.operation, v7.sessionId, v7.userId], ['invoke_agent', 's-2', 'u-2'])
  const tokens = genAiFields(
    span({ 'ai.operationId': 'ai.streamText.doStream', 'ai.model.id': 'gpt-4o', 'ai.usage.promptTokens': 12, 'ai.usage.completionTokens': 3 }),
  )
  assert.deepEqual([tokens.operation, tokens.requestModel, tokens.inputTokens, tokens.outputTokens], ['chat', 'gpt-4o', 12, 3])
})

test('OpenInference: an agent span with plain-text input and output is the user turn and the answer; attribute keys stay data', () => {
  const agent = span({
    'openinference.span.kind': 'AGENT',
    'input.value': 'Where is A-1?',
    'input.mime_type': 'text/plain',
    'output.value': '{"output":"Delivered."}',
    'output.mime_type': 'application/json',
    'session.id': 's-3',
  })
  const c = conversationOf({ projectId: 'p', traceId: 'a'.repeat(32), spans: [agent], complete: true })
  assert.deepEqual(
    c.turns.map((t) => `${t.role}: ${t.text}`),
    ['user: Where is A-1?', 'assistant: Delivered.'],
  )
  assert.deepEqual([genAiFields(agent).operation, genAiFields(agent).sessionId], ['invoke_agent', 's-3'])
  const odd = span({
    'openinference.span.kind': 'LLM',
    'llm.input_messages.0.message.role': 'user',
    'llm.input_messages.0.message.__proto__': 'x',
    'llm.input_messages.0.message.content': 'hi',
  })
  assert.deepEqual(
    conversationOf({ projectId: 'p', traceId: 'a'.repeat(32), spans: [odd], complete: true }).turns.map((t) => t.text),
    ['hi'],
  )
  assert.equal(({} as Record<string, unknown>).x, undefined)
})
