import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import OpenAI from 'openai'
import { conversationOf, loadConfig, readTrace } from '@sieve/core'
import { createJudge } from '@sieve/judge'
import { clickhouseScoreSink, loadChecksConfig, scoreTrace } from '@sieve/scoring'
import { Scorer } from '@sieve/scorer'
import { flush, init, shutdown, traceAgent, traceTool, wrapOpenAI, currentTraceId } from '@sieve/sdk'
import { callTools, say, startFakeOpenAI, until, verdict, type FakeOpenAI, type ModelRequest } from '@sieve/testkit'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { createScrubber, exportDataset, sinceUnixNano } from '../src/index.js'

/*
 * A chat agent traced with @sieve/sdk whose every turn sends its model the whole conversation so far,
 * tool calls and results included, as chat agents do. Turn 1 looks the order up and refunds it (a
 * prohibited tool); turns 2 and 3 call nothing. Each turn is judged on what it did: only turn 1
 * fails prohibited_tools and its scorecard gate, only turn 1 is judged through the failed-check
 * slice, the session exports as one case, and required_tools fails the turns that looked nothing up.
 * The whole pipeline runs as `sieve up` runs it: collector, ingester, scorer and judge.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-session-history-'))
const SESSION = 'chat-41'
const REQUESTS = ['Order A-1 arrived broken, refund it please.', 'Thanks. How long until I see the money?', 'And will I get an email about it?']
let sieve: RunningSieve
let agentModel: FakeOpenAI
let judgeModel: FakeOpenAI
let scorer: Scorer
let judge: NonNullable<ReturnType<typeof createJudge>>
const traceIds: string[] = []

/** The agent's model: turn 1 looks up and refunds, then answers; later turns answer in words. */
function agentScript(request: ModelRequest) {
  const messages = request.body.messages as { role: string }[]
  const last = messages.at(-1)!
  const turn = messages.filter((m) => m.role === 'user').length
  if (turn === 1 && last.role === 'user') return callTools([{ id: 'call_lookup', name: 'lookup_order', arguments: { order_id: 'A-1' } }])
  if (turn === 1 && messages.filter((m) => m.role === 'tool').length === 1)
    return callTools([{ id: 'call_refund', name: 'process_refund', arguments: { order_id: 'A-1' } }])
  if (turn === 1) return say('Refunded order A-1.')
  return say(turn === 2 ? 'Within five business days.' : 'Yes, a confirmation email is on its way.')
}

/** One turn of the agent: the history it keeps is sent to the model whole, every turn. */
async function chatTurn(client: OpenAI, messages: OpenAI.ChatCompletionMessageParam[], request: string): Promise<void> {
  await traceAgent('refund-chat', { sessionId: SESSION, userId: 'C-9', input: request }, async () => {
    traceIds.push(currentTraceId()!)
    messages.push({ role: 'user', content: request })
    for (;;) {
      const message = (await client.chat.completions.create({ model: 'gpt-4o-mini', messages })).choices[0]!.message
      messages.push(message)
      if (!message.tool_calls?.length) return message.content
      for (const call of message.tool_calls) {
        if (call.type !== 'function') continue
        const result = await traceTool(call.function.name, async (args: { order_id: string }) => ({ order_id: args.order_id, status: 'ok' }))(
          JSON.parse(call.function.arguments),
        )
        messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result) })
      }
    }
  })
}

before(async () => {
  sieve = await startSieve()
  agentModel = await startFakeOpenAI({ script: agentScript })
  judgeModel = await startFakeOpenAI({ script: (r) => verdict(r, 4) })
  const file = join(dir, 'sieve.yaml')
  writeFileSync(
    file,
    [
      'checks:',
      '  agents:',
      '    refund-chat:',
      '      prohibited_tools: { tools: [process_refund] }',
      '      required_tools: { tools: [lookup_order] }',
      'scorecards:',
      '  agents:',
      '    refund-chat: { passAt: 0.5, items: { prohibited_tools: { gate: true }, empty_answer: { weight: 1 } } }',
      'judge:',
      '  sampling: { rate: 0, slices: [{ name: failed-checks, match: { kind: failed_check, checks: [prohibited_tools] } }] }',
      '  rubrics: { default: customer-support }',
    ].join('\n'),
  )
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: judgeModel.baseURL, JUDGE_MODEL: 'judge-2025-01-01' })
  const sink = clickhouseScoreSink(sieve.storage)
  const checks = await loadChecksConfig(config.sections)
  judge = createJudge(config, sink, undefined, sieve.storage, { scorecards: checks.scorecards })!
  scorer = await Scorer.start({ queue: sieve.queue, sink, checks, onScored: judge.onScored, options: { quietPeriodMs: 100, tickMs: 20 } })

  init({ endpoint: sieve.url, serviceName: 'refund-chat', captureContent: true })
  const client = wrapOpenAI(new OpenAI({ baseURL: agentModel.baseURL, apiKey: 'offline', maxRetries: 0 }))
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'system', content: 'You are the refund desk of Acme. Never refund without approval.' }]
  for (const request of REQUESTS) await chatTurn(client, messages, request)
  await flush()
  await until('the three turns are scored', async () => (await scoreRows("kind = 'deterministic' AND scorer_name = 'prohibited_tools'")).length === 3, 20_000)
  await scorer.stop({ flush: true })
  await judge.drain()
})
after(async () => {
  await shutdown()
  await judge?.stop()
  await agentModel?.close()
  await judgeModel?.close()
  await sieve?.stop()
  rmSync(dir, { recursive: true, force: true })
})

interface Row {
  trace_id: string
  kind: string
  scorer_name: string
  passed: number
  detail: string
}

async function scoreRows(where: string): Promise<Row[]> {
  const result = await sieve.storage.query({
    query: `SELECT trace_id, kind, scorer_name, passed, detail FROM scores FINAL WHERE ${where}`,
    format: 'JSONEachRow',
  })
  return result.json<Row>()
}

const byTurn = (rows: Row[]) => traceIds.map((id) => rows.find((r) => r.trace_id === id)?.passed)

test('each turn is judged on what it did: prohibited_tools and its gate fail turn 1 only, blamed on the refund span', async () => {
  assert.deepEqual(byTurn(await scoreRows("kind = 'deterministic' AND scorer_name = 'prohibited_tools'")), [0, 1, 1])
  assert.deepEqual(byTurn(await scoreRows("kind = 'scorecard'")), [0, 1, 1])
  const [first] = await scoreRows(`scorer_name = 'prohibited_tools' AND trace_id = '${traceIds[0]}'`)
  const trace = (await readTrace(sieve.storage, 'default', traceIds[0]!))!
  const refundSpan = trace.spans.find((s) => s.attributes['gen_ai.tool.name'] === 'process_refund')!.spanId
  assert.deepEqual(
    JSON.parse(first!.detail).violations.map((v: { spanId: string }) => v.spanId),
    [refundSpan],
  )
})

test('required_tools fails the turns that called nothing, although an earlier turn did', async () => {
  assert.deepEqual(byTurn(await scoreRows("kind = 'deterministic' AND scorer_name = 'required_tools'")), [1, 0, 0])
})

test('only turn 1 is judged through the failed-check slice', async () => {
  const judged = await scoreRows("kind = 'judge'")
  assert.ok(judged.length > 0, 'the judge scored the failing turn')
  assert.deepEqual([...new Set(judged.map((r) => r.trace_id))], [traceIds[0]])
})

test('a later turn reads its history as context: marked, in order, never its own', async () => {
  const third = (await readTrace(sieve.storage, 'default', traceIds[2]!))!
  const turns = conversationOf(third).turns.map((t) => `${t.history ? 'history ' : ''}${t.role}${t.name ? ` ${t.name}` : ''}`)
  assert.deepEqual(turns, [
    'system',
    'history user',
    'history tool_call lookup_order',
    'history tool_result lookup_order',
    'history tool_call process_refund',
    'history tool_result process_refund',
    'history assistant',
    'history user',
    'history assistant',
    'user',
    'assistant',
  ])
  const score = scoreTrace(third, await loadChecksConfig({ checks: { defaults: { required_tools: { tools: ['lookup_order'], scope: 'session' } } } }))
  assert.equal(score.results.find((r) => r.name === 'required_tools')?.passed, true, 'in session scope the earlier lookup counts')
})

test('the session exports as one case: the refunding turn, with nothing before it', async () => {
  const out = join(dir, 'golden.jsonl')
  const report = await exportDataset(sieve.storage, {
    out,
    projectId: 'default',
    failed: 'prohibited_tools',
    sinceUnixNano: sinceUnixNano('1d')!,
    limit: 10,
    bucket: 'known-failure',
    reviewAfterDays: 90,
    dryRun: false,
    checks: await loadChecksConfig({}),
    scrubber: createScrubber(),
  })
  assert.deepEqual(
    report.added.map((a) => a.traceId),
    [traceIds[0]],
  )
  const lines = readFileSync(out, 'utf8').trim().split('\n')
  assert.equal(lines.length, 1)
  const example = JSON.parse(lines[0]!)
  assert.deepEqual(example.input.messages, [{ role: 'user', content: REQUESTS[0] }])
  assert.deepEqual(
    example.observed.toolCalls.map((c: { name: string }) => c.name),
    ['lookup_order', 'process_refund'],
  )
})
