/**
 * `npm run bench:sdk`: what tracing costs inside the agent process, per wrapped LLM call and per
 * tool span, against bare @opentelemetry/sdk-trace-base spans carrying the same attributes, in
 * the same run. The LLM is an in-process stub (no network), so the figures are the SDK's own work.
 * Spans go through the real batch processors to an exporter that drops them. The bare baseline
 * is what a hand-written instrumentation does: startActiveSpan, the attributes set by hand, content
 * serialized at call time. The SDK measured is the published build (dist/), built by the script.
 *
 * Time: median µs of this process's CPU (user + system, all threads: GC helpers included) per
 * operation over rounds, so that other processes on a shared machine do not count. Allocation: heap growth per operation with young-
 * generation GC kept out of the way (large semi-space, --expose-gc), an estimate of bytes allocated.
 */
import { SpanKind, type Attributes } from '@opentelemetry/api'
import { ExportResultCode } from '@opentelemetry/core'
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base'
import { flush, init, shutdown, traceAgent, traceTool, wrapOpenAI } from '@sieve/sdk'

const ROUNDS = 40
const OPS = 250
const gc = (globalThis as { gc?: () => void }).gc
if (!gc) throw new Error('run with --expose-gc (npm run bench:sdk does)')

const dropAll: SpanExporter = { export: (_spans, done) => done({ code: ExportResultCode.SUCCESS }), shutdown: async () => {} }
const batchOptions = { maxQueueSize: 100_000, maxExportBatchSize: 512, scheduledDelayMillis: 60_000 }

// A realistic request and answer: system prompt, a few turns, one tool definition, ~1 KB of text.
const params = {
  model: 'gpt-4o-mini',
  temperature: 0,
  max_tokens: 400,
  messages: [
    { role: 'system' as const, content: 'You are the customer-support agent of an online shop. '.repeat(6) },
    { role: 'user' as const, content: 'Hi, I want a refund for order A-1001, it arrived broken. '.repeat(4) },
    {
      role: 'assistant' as const,
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function' as const, function: { name: 'check_order_status', arguments: '{"order_id":"A-1001"}' } }],
    },
    { role: 'tool' as const, tool_call_id: 'call_1', content: '{"order_id":"A-1001","status":"delivered","deliveredDaysAgo":45,"amount":89.9}' },
  ],
  tools: [
    { type: 'function' as const, function: { name: 'check_order_status', parameters: { type: 'object', properties: { order_id: { type: 'string' } } } } },
  ],
}
const completion = {
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4o-mini-2024-07-18',
  choices: [
    {
      index: 0,
      finish_reason: 'stop',
      logprobs: null,
      message: { role: 'assistant', content: 'Order A-1001 is outside the 30-day window; I added store credit instead. '.repeat(3), refusal: null },
    },
  ],
  usage: { prompt_tokens: 310, completion_tokens: 52, total_tokens: 362 },
}
const stubClient = () => ({ baseURL: 'https://api.openai.com/v1', chat: { completions: { create: async (_p: unknown) => completion } } })
const toolArgs = { order_id: 'A-1001' }
const toolFn = async (args: { order_id: string }) => ({ order_id: args.order_id, status: 'delivered', deliveredDaysAgo: 45, amount: 89.9 })

// The bare baseline: the same attributes set on plain spans by hand, serializing the content at
// call time as a hand-written instrumentation has to.
const llmRequestAttributes = (p: typeof params): Attributes => ({
  'gen_ai.operation.name': 'chat',
  'gen_ai.provider.name': 'openai',
  'server.address': 'api.openai.com',
  'server.port': 443,
  'gen_ai.request.model': p.model,
  'gen_ai.request.max_tokens': p.max_tokens,
  'gen_ai.request.temperature': p.temperature,
  'gen_ai.request.stream': false,
  'gen_ai.system_instructions': JSON.stringify([{ type: 'text', content: p.messages[0]!.content }]),
  'gen_ai.input.messages': JSON.stringify(p.messages.slice(1)),
  'gen_ai.tool.definitions': JSON.stringify(p.tools),
})
const llmResponseAttributes = (c: typeof completion): Attributes => ({
  'gen_ai.response.id': c.id,
  'gen_ai.response.model': c.model,
  'gen_ai.response.finish_reasons': [c.choices[0]!.finish_reason],
  'gen_ai.usage.input_tokens': c.usage.prompt_tokens,
  'gen_ai.usage.output_tokens': c.usage.completion_tokens,
  'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: c.choices[0]!.message.content }], finish_reason: 'stop' }]),
  'http.response.status_code': 200,
})
const toolAttributes = (args: typeof toolArgs): Attributes => ({
  'gen_ai.operation.name': 'execute_tool',
  'gen_ai.tool.name': 'check_order_status',
  'gen_ai.tool.type': 'function',
  'gen_ai.tool.call.arguments': JSON.stringify(args),
})

const bareProvider = new BasicTracerProvider({ spanProcessors: [new BatchSpanProcessor(dropAll, batchOptions)] })
const bareTracer = bareProvider.getTracer('bench')
init({ exporter: dropAll, serviceName: 'bench', maxQueueSize: batchOptions.maxQueueSize, scheduledDelayMillis: 60_000, captureContent: true })
const wrapped = wrapOpenAI(stubClient())
const unwrapped = stubClient()
const tracedTool = traceTool('check_order_status', toolFn)

const cases: Record<string, () => Promise<unknown>> = {
  'LLM call, no tracing': () => unwrapped.chat.completions.create(params),
  'LLM call, bare OTel span': () =>
    bareTracer.startActiveSpan('chat gpt-4o-mini', { kind: SpanKind.CLIENT, attributes: llmRequestAttributes(params) }, async (span) => {
      const result = await unwrapped.chat.completions.create(params)
      span.setAttributes(llmResponseAttributes(result))
      span.end()
      return result
    }),
  'LLM call, @sieve/sdk wrapOpenAI': () => wrapped.chat.completions.create(params),
  'tool, no tracing': () => toolFn(toolArgs),
  'tool, bare OTel span': () =>
    bareTracer.startActiveSpan('execute_tool check_order_status', { kind: SpanKind.INTERNAL, attributes: toolAttributes(toolArgs) }, async (span) => {
      const result = await toolFn(toolArgs)
      span.setAttribute('gen_ai.tool.call.result', JSON.stringify(result))
      span.end()
      return result
    }),
  'tool, @sieve/sdk traceTool': () => tracedTool(toolArgs),
}

async function measure(fn: () => Promise<unknown>): Promise<{ us: number; bytes: number }> {
  await flush()
  await bareProvider.forceFlush()
  gc!()
  const heapBefore = process.memoryUsage().heapUsed
  const start = process.cpuUsage()
  for (let i = 0; i < OPS; i++) await fn()
  const used = process.cpuUsage(start)
  const bytes = process.memoryUsage().heapUsed - heapBefore
  return { us: (used.user + used.system) / OPS, bytes: bytes / OPS }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const samples: Record<string, { us: number[]; bytes: number[] }> = {}
// Warm-up, then rounds that interleave the cases so drift affects them alike. Everything runs
// inside an agent span, as in an agent.
await traceAgent('bench', async () => {
  for (const fn of Object.values(cases)) for (let i = 0; i < 2000; i++) await fn()
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, fn] of Object.entries(cases)) {
      const { us, bytes } = await measure(fn)
      ;(samples[name] ??= { us: [], bytes: [] }).us.push(us)
      samples[name].bytes.push(bytes)
    }
  }
})

const row = (name: string) => ({ us: median(samples[name]!.us), bytes: median(samples[name]!.bytes) })
console.log(
  `@sieve/sdk overhead (${ROUNDS} interleaved rounds × ${OPS} ops, medians of CPU µs per op; content capture on; SDK from ${import.meta.resolve('@sieve/sdk').replace(/^.*\/sdk\//, 'sdk/')})\n`,
)
console.log('case                               µs/op    bytes/op')
for (const name of Object.keys(cases)) {
  const r = row(name)
  console.log(`${name.padEnd(34)} ${r.us.toFixed(2).padStart(6)}  ${Math.round(r.bytes).toString().padStart(9)}`)
}
for (const kind of ['LLM call', 'tool'] as const) {
  const none = row(`${kind}, no tracing`)
  const bare = row(`${kind}, bare OTel span`)
  const sdk = row(kind === 'LLM call' ? 'LLM call, @sieve/sdk wrapOpenAI' : 'tool, @sieve/sdk traceTool')
  const bareCost = bare.us - none.us
  const sdkCost = sdk.us - none.us
  console.log(
    `\n${kind}: tracing cost ${sdkCost.toFixed(2)} µs with the SDK vs ${bareCost.toFixed(2)} µs bare OTel → ratio ${(sdkCost / bareCost).toFixed(2)}×` +
      `; allocation ${Math.round(sdk.bytes - none.bytes)} vs ${Math.round(bare.bytes - none.bytes)} bytes → ${((sdk.bytes - none.bytes) / (bare.bytes - none.bytes)).toFixed(2)}×`,
  )
}
await shutdown()
await bareProvider.shutdown()
