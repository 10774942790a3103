import { randomBytes } from 'node:crypto'
import type { Span } from '@sieve/core'

export const hexId = (bytes: number) => randomBytes(bytes).toString('hex')

/**
 * A valid span with nothing in it (no attributes, events, links or resource, unset status, time 0):
 * the base every builder here starts from, so a test states only the fields it is about.
 */
export function blankSpan({ traceId, spanId, ...fields }: Partial<Span> & Pick<Span, 'traceId' | 'spanId'>): Span {
  return {
    projectId: 'default',
    traceId,
    spanId,
    parentSpanId: '',
    traceState: '',
    name: 'span',
    kind: 'INTERNAL',
    startTimeUnixNano: '0',
    endTimeUnixNano: '0',
    status: { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: '',
    scope: { name: 'test', version: '', attributes: {} },
    attributes: {},
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...fields,
  }
}

/** A complete GenAI chat span with random ids and a realistic payload; `overrides` set what a test looks at. */
export function makeSpan(overrides: Partial<Span> = {}): Span {
  const start = 1_764_400_000_000_000_000n + BigInt(Math.floor(Math.random() * 1e12))
  return blankSpan({
    traceId: hexId(16),
    spanId: hexId(8),
    name: 'chat gpt-4o',
    kind: 'CLIENT',
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + 1_250_000_000n).toString(),
    status: { code: 'OK', message: '' },
    flags: 1,
    serviceName: 'support-agent',
    scope: { name: 'sieve-test', version: '1.0.0', attributes: {} },
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.usage.input_tokens': 812,
      'gen_ai.usage.output_tokens': 95,
      'gen_ai.request.stop_sequences': ['\n\n', 'END'],
      'sieve.test.flag': true,
    },
    resource: { 'service.name': 'support-agent', 'deployment.environment.name': 'test' },
    events: [{ timeUnixNano: start.toString(), name: 'gen_ai.user.message', attributes: { content: 'Where is my order?' }, droppedAttributesCount: 0 }],
    ...overrides,
  })
}

/** `traces` traces of `perTrace` spans each (the first a root, the others its children). */
export function makeTraces(traces: number, perTrace: number): Span[] {
  const spans: Span[] = []
  for (let t = 0; t < traces; t++) {
    const traceId = hexId(16)
    const root = makeSpan({ traceId, name: 'invoke_agent support' })
    spans.push(root)
    for (let i = 1; i < perTrace; i++) spans.push(makeSpan({ traceId, parentSpanId: root.spanId }))
  }
  return spans
}
