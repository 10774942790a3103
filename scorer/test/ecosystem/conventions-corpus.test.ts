import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { conversationOf, genAiFields, traceSessionId, type Trace, type Turn } from '@sieve/core'
import { checkOutcome, resolveChecksConfig, scoreTrace, traceView } from '@sieve/scoring'
import { startFakeOpenAI, until, type FakeOpenAI } from '@sieve/testkit'
import {
  CORPUS_CASES,
  CORPUS_PROHIBITED,
  CORPUS_SCENARIOS,
  CORPUS_SCENARIO_NAMES,
  CORPUS_SYSTEM,
  CORPUS_TOOL_RESULTS,
  corpusSkip,
  runCorpusCase,
  turnTraces,
  type CorpusScenario,
} from '@sieve/testkit/corpus'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * The conventions corpus: one support agent written with each agent library and traced by each
 * instrumentation as its users run it (testkit/src/corpus.ts), through the real collector and storage.
 * Every case must read as the agent ran: every message once and in order with a later turn's resent
 * history marked, the tool calls with their real arguments, the model calls and tokens, the agent,
 * session and user ids the library carries, and every check's outcome: no failure on a clean turn,
 * prohibited_tools on exactly the turn that refunded, and "not measured" (never a pass) where the
 * instrumentation did not send what a check reads.
 */

/** What a case's instrumentation sends, where it differs from sending everything. */
interface Sends {
  /** The agent's name, where the library writes one. */
  agentName?: string
  /** No message content at all (OpenTelemetry's openai-v2 without a capture mode that sends it). */
  noContent?: true
  /** A streamed call reports no token counts. */
  noStreamedUsage?: true
  /** The tools offered to the model are not on the trace. */
  noToolDefinitions?: true
}

const SENDS: Record<string, Sends> = {
  'langgraph-openinference': { agentName: 'support' },
  'langgraph-openllmetry': { agentName: 'support' },
  'llamaindex-openinference': { noStreamedUsage: true },
  'openai-agents-openinference': { agentName: 'support' },
  'openai-openinference': {},
  'openai-openllmetry': {},
  'openai-otel': { noContent: true, noToolDefinitions: true },
  'openai-otel-true': { noContent: true, noToolDefinitions: true },
  'openai-otel-latest': { noContent: true, noToolDefinitions: true },
  'openai-otel-latest-true': { noContent: true, noToolDefinitions: true },
  'openai-otel-span_only': { noToolDefinitions: true },
  'openai-otel-event_only': { noToolDefinitions: true },
  'openai-otel-span_and_event': { noToolDefinitions: true },
  'js-openai-openinference': { noStreamedUsage: true },
  'js-openai-otel': { noToolDefinitions: true },
  'js-ai-sdk-legacy': { agentName: 'support' },
  'js-ai-sdk-otel': { agentName: 'support' },
  'js-sieve-sdk': { agentName: 'support' },
}

const CONTENT_CHECKS = ['prohibited_tools', 'banned_content', 'invented_urls', 'pii_echo', 'empty_answer']
const checks = resolveChecksConfig({ defaults: { prohibited_tools: { tools: [CORPUS_PROHIBITED] } } })

let sieve: RunningSieve
let model: FakeOpenAI
before(async () => {
  sieve = await startSieve()
  model = await startFakeOpenAI({ script: [] })
})
after(async () => {
  await model?.close()
  await sieve?.stop()
})

const json = (text: string): string => {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}
const shown = (t: Turn) => `${t.history ? 'history ' : ''}${t.role}${t.name ? ` ${t.name}` : ''}: ${t.role.startsWith('tool') ? json(t.text) : t.text}`

/** The conversation of turn `k` of a scenario, read from its trace alone: earlier turns as history. */
function expectedConversation(scenario: CorpusScenario, k: number): string[] {
  const turns = [`system: ${CORPUS_SYSTEM}`]
  scenario.turns.slice(0, k + 1).forEach((turn, i) => {
    const h = i < k ? 'history ' : ''
    turns.push(`${h}user: ${turn.user}`)
    if (turn.tool) {
      turns.push(`${h}tool_call ${turn.tool.name}: ${JSON.stringify(turn.tool.arguments)}`)
      turns.push(`${h}tool_result ${turn.tool.name}: ${JSON.stringify({ ...turn.tool.arguments, ...CORPUS_TOOL_RESULTS[turn.tool.name] })}`)
    }
    turns.push(`${h}assistant: ${turn.answer}`)
  })
  return turns
}

/** Each check's outcome on one trace: failed and not measured, by name (the rest passed or did not apply). */
function outcomes(trace: Trace): { failed: string[]; notMeasured: string[]; errors: string[] } {
  const { results } = scoreTrace(trace, checks)
  const named = (o: string) =>
    results
      .filter((r) => checkOutcome(r) === o)
      .map((r) => r.name)
      .sort()
  return { failed: named('failed'), notMeasured: named('not_measured'), errors: named('error') }
}

/**
 * The session the trace list shows for each trace, once the `traces` rollup holds every span of it:
 * a trace's spans may come in more than one export, and its row is rewritten as they do.
 */
async function sessionColumn(traces: { traceId: string; spans: readonly unknown[] }[]): Promise<string[]> {
  const read = async () =>
    await (
      await sieve.storage.query({
        query: 'SELECT trace_id, session_id, span_count FROM traces FINAL WHERE trace_id IN {ids:Array(String)}',
        query_params: { ids: traces.map((t) => t.traceId) },
        format: 'JSONEachRow',
      })
    ).json<{ trace_id: string; session_id: string; span_count: number }>()
  const whole = (rows: { trace_id: string; span_count: number }[]) =>
    traces.every((t) => rows.find((r) => r.trace_id === t.traceId)?.span_count === t.spans.length)
  await until('the traces rollup has every span of the session traces', async () => whole(await read()), 10_000)
  const rows = await read()
  return traces.map((t) => rows.find((r) => r.trace_id === t.traceId)!.session_id)
}

for (const c of CORPUS_CASES) {
  const sends = SENDS[c.name]!
  test(`${c.name}: every scenario reads as the agent ran it`, { skip: corpusSkip(c) }, async () => {
    assert.ok(sends, `SENDS has no entry for ${c.name}`)
    const run = await runCorpusCase(c, { sieve, model })
    // The model calls each scenario needs (a tool call and an answer; the session 2 + 1 + 1), the streamed ones streamed.
    assert.deepEqual(
      run.requests.map((r) => r.stream),
      [...Array(8).fill(false), true, true],
      `${c.name}: the model requests`,
    )
    for (const name of CORPUS_SCENARIO_NAMES) {
      const scenario: CorpusScenario = CORPUS_SCENARIOS[name]
      const at = (what: string, k: number) => `${c.name} ${name} turn ${k + 1}: ${what}`
      const traces = turnTraces(run.traces[name] ?? [])
      assert.equal(traces.length, scenario.turns.length, `${c.name} ${name}: one trace per turn`)
      const streamedWithoutUsage = scenario.stream && sends.noStreamedUsage
      for (const [k, turn] of scenario.turns.entries()) {
        const trace = traces[k]!
        const view = traceView(trace)
        const conversation = conversationOf(trace)
        if (sends.noContent) {
          assert.deepEqual(conversation.turns, [], at('no content was sent', k))
          assert.match(conversation.contentHint, /OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=span_only/, at('the hint names the setting', k))
        } else {
          assert.deepEqual(conversation.turns.map(shown), expectedConversation(scenario, k), at('conversation', k))
          assert.deepEqual(
            view.toolCalls.map((t) => [t.name, t.arguments]),
            turn.tool ? [[turn.tool.name, turn.tool.arguments]] : [],
            at('tool calls', k),
          )
        }
        assert.equal(view.llmCalls.length, turn.tool ? 2 : 1, at('model calls', k))
        const tokens = view.llmCalls.reduce((sum, l) => [sum[0]! + l.fields.inputTokens, sum[1]! + l.fields.outputTokens], [0, 0])
        const usage = turn.tool ? [turn.usage.toolCall![0] + turn.usage.answer[0], turn.usage.toolCall![1] + turn.usage.answer[1]] : turn.usage.answer
        assert.deepEqual(tokens, streamedWithoutUsage ? [0, 0] : usage, at('tokens', k))
        assert.equal(view.agentName, sends.agentName ?? '', at('agent name', k))
        assert.deepEqual([...view.toolDefinitions.keys()], sends.noToolDefinitions ? [] : ['lookup_order', 'process_refund'], at('tool definitions', k))
        const got = outcomes(trace)
        const notMeasured = [...(sends.noContent ? CONTENT_CHECKS : []), ...(streamedWithoutUsage ? ['token_budget'] : [])].sort()
        const refunded = turn.tool?.name === CORPUS_PROHIBITED
        assert.deepEqual(got, { failed: refunded && !sends.noContent ? ['prohibited_tools'] : [], notMeasured, errors: [] }, at('check outcomes', k))
      }
      if (scenario.session) {
        assert.deepEqual(
          traces.map(traceSessionId),
          traces.map(() => scenario.session!.id),
          `${c.name}: the session each trace names`,
        )
        assert.deepEqual(
          await sessionColumn(traces),
          traces.map(() => scenario.session!.id),
          `${c.name}: the session the trace list shows`,
        )
        const users = traces.map((t) => [...new Set(t.spans.map((s) => genAiFields(s).userId).filter(Boolean))])
        assert.deepEqual(
          users,
          traces.map(() => [scenario.session!.userId]),
          `${c.name}: the user each trace names`,
        )
        if (!sends.noContent) {
          const whole = conversationOf(traces).turns
          assert.ok(!whole.some((t) => t.history), `${c.name}: read as one session, no turn is history`)
          assert.deepEqual(
            whole.map(shown),
            expectedConversation(scenario, scenario.turns.length - 1).map((s) => s.replace(/^history /, '')),
            `${c.name}: the session's conversation`,
          )
        }
      }
    }
  })
}
