import assert from 'node:assert/strict'
import { test } from 'node:test'
import { seededRandom } from '@sieve/testkit'
import { conversationOf, type Span, type Trace } from '../src/index.js'

/**
 * For random agent scripts (n user turns, k tool calls each, some in parallel), spans are written
 * the way instrumented agents write them — every span of a trace starting in the same millisecond,
 * end times random within it, spans in random order — and the conversation must be the script.
 */

type Step = { role: 'user' | 'assistant'; text: string } | { role: 'calls'; calls: { id: string; name: string; args: object; result: object }[] }

function script(random: () => number): Step[] {
  const steps: Step[] = []
  const turns = 1 + Math.floor(random() * 4)
  let callNo = 0
  for (let t = 0; t < turns; t++) {
    // Some users repeat themselves: the same words in two turns are two turns.
    steps.push({ role: 'user', text: t > 0 && random() < 0.2 ? 'yes' : `question ${t}: ${random().toString(36).slice(2, 8)}` })
    const rounds = Math.floor(random() * 3)
    for (let r = 0; r < rounds; r++) {
      const width = 1 + Math.floor(random() * 3)
      const calls = Array.from({ length: width }, () => {
        const n = callNo++
        return { id: `call_${n}`, name: ['lookup', 'refund', 'search'][n % 3]!, args: { n }, result: { ok: n } }
      })
      steps.push({ role: 'calls', calls })
    }
    steps.push({ role: 'assistant', text: t > 0 && random() < 0.2 ? 'Done.' : `answer ${t}` })
  }
  return steps
}

/** The OpenAI-shaped history of the conversation up to (not including) step `upTo`. */
function history(steps: Step[], upTo: number): object[] {
  const messages: object[] = []
  for (const step of steps.slice(0, upTo)) {
    if (step.role === 'calls') {
      messages.push({ role: 'assistant', parts: step.calls.map((c) => ({ type: 'tool_call', id: c.id, name: c.name, arguments: c.args })) })
      for (const c of step.calls) messages.push({ role: 'tool', parts: [{ type: 'tool_call_response', id: c.id, response: c.result }] })
    } else messages.push({ role: step.role, parts: [{ type: 'text', content: step.text }] })
  }
  return messages
}

function makeSpan(traceId: string, spanId: string, parentSpanId: string, startNs: bigint, endNs: bigint, attributes: Span['attributes']): Span {
  return {
    projectId: 'p',
    traceId,
    spanId,
    parentSpanId,
    traceState: '',
    name: String(attributes['gen_ai.operation.name']),
    kind: 'INTERNAL',
    startTimeUnixNano: startNs.toString(),
    endTimeUnixNano: endNs.toString(),
    status: { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: 'agent',
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

/**
 * Spans of the steps [from, to) as one agent invocation; with `fullHistory` each model call's input
 * holds the whole conversation so far, otherwise only this invocation's part of it.
 */
function agentSpans(steps: Step[], from: number, to: number, traceId: string, ms: bigint, random: () => number, fullHistory: boolean): Span[] {
  let id = 0
  const spanId = () => `${traceId.slice(0, 8)}${(id++).toString(16).padStart(8, '0')}`
  const end = () => ms * 1_000_000n + BigInt(Math.floor(random() * 999_999))
  const start = ms * 1_000_000n
  const rootId = spanId()
  const user = steps[from] as { text: string }
  const answer = steps[to - 1] as { text: string }
  const spans: Span[] = [
    makeSpan(traceId, rootId, '', start, start + 999_999n, {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: user.text }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer.text }] }]),
    }),
  ]
  for (let i = from + 1; i < to; i++) {
    const step = steps[i]!
    const input = history(steps, i).slice(fullHistory ? 0 : history(steps, from).length)
    const output = history(steps, i + 1).slice(history(steps, i).length)
    spans.push(
      makeSpan(traceId, spanId(), rootId, start, end(), {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'm',
        'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: 'Be helpful.' }]),
        'gen_ai.input.messages': JSON.stringify(input),
        'gen_ai.output.messages': JSON.stringify(step.role === 'calls' ? output.slice(0, 1) : output),
      }),
    )
    if (step.role === 'calls') {
      for (const c of step.calls) {
        spans.push(
          makeSpan(traceId, spanId(), rootId, start, end(), {
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': c.name,
            'gen_ai.tool.call.id': c.id,
            'gen_ai.tool.call.arguments': JSON.stringify(c.args),
            'gen_ai.tool.call.result': JSON.stringify(c.result),
          }),
        )
      }
    }
  }
  return spans
}

function expected(steps: Step[]): string[] {
  const out = ['system Be helpful.']
  for (const step of steps) {
    if (step.role !== 'calls') out.push(`${step.role} ${step.text}`)
    else {
      for (const c of step.calls) out.push(`tool_call ${c.id} ${c.name}`)
      for (const c of step.calls) out.push(`tool_result ${c.id}`)
    }
  }
  return out
}

const shown = (trace: Trace | Trace[]) =>
  conversationOf(trace).turns.map((t) =>
    t.role === 'tool_call' ? `tool_call ${t.callId} ${t.name}` : t.role === 'tool_result' ? `tool_result ${t.callId}` : `${t.role} ${t.text}`,
  )

function shuffle<T>(list: T[], random: () => number): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[list[i], list[j]] = [list[j]!, list[i]!]
  }
  return list
}

/** Where each user turn starts and its agent invocation ends. */
function invocations(steps: Step[]): [number, number][] {
  const starts = steps.flatMap((s, i) => (s.role === 'user' ? [i] : []))
  return starts.map((s, k) => [s, starts[k + 1] ?? steps.length])
}

test('a session (a trace per user turn, full histories, one millisecond per trace) reads as the script', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const random = seededRandom(seed).float
    const steps = script(random)
    const traces = invocations(steps).map(([from, to], k) => {
      const traceId = `${k.toString(16).padStart(2, '0')}${'a'.repeat(30)}`
      return {
        projectId: 'p',
        traceId,
        spans: shuffle(agentSpans(steps, from, to, traceId, 1_700_000_000_000n + BigInt(k), random, true), random),
        complete: true,
      }
    })
    assert.deepEqual(shown(shuffle([...traces], random)), expected(steps), `seed ${seed}`)
  }
})

test('a session whose model calls see only the current turn reads as the script', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const random = seededRandom(seed * 7919).float
    const steps = script(random)
    const traces = invocations(steps).map(([from, to], k) => {
      const traceId = `${k.toString(16).padStart(2, '0')}${'b'.repeat(30)}`
      return {
        projectId: 'p',
        traceId,
        spans: shuffle(agentSpans(steps, from, to, traceId, 1_700_000_000_000n + BigInt(k), random, false), random),
        complete: true,
      }
    })
    const got = shown(traces)
    // Each trace's first model call repeats the system prompt: shown once per trace it opens.
    assert.deepEqual(
      got.filter((t) => t !== 'system Be helpful.'),
      expected(steps).slice(1),
      `seed ${seed}`,
    )
  }
})

test('one trace holding the last invocation, whose model calls carry every earlier turn, reads as the script', () => {
  for (let seed = 1; seed <= 300; seed++) {
    const random = seededRandom(seed * 104729).float
    const steps = script(random)
    const [from, to] = invocations(steps).at(-1)!
    const traceId = 'c'.repeat(32)
    const spans = shuffle(agentSpans(steps, from, to, traceId, 1_700_000_000_000n, random, true), random)
    const got = shown({ projectId: 'p', traceId, spans, complete: true })
    // Earlier turns are known from the model calls' inputs; a last turn without tool calls has none.
    const hasModelCall = to - from > 1
    assert.deepEqual(
      got,
      hasModelCall ? expected(steps) : [`user ${(steps[from] as { text: string }).text}`, `assistant ${(steps[to - 1] as { text: string }).text}`],
      `seed ${seed}`,
    )
  }
})
