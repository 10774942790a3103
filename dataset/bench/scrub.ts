import { Readable, Writable } from 'node:stream'
import { resolveChecksConfig } from '@sieve/scoring'
import { median, processCpuSeconds } from '@sieve/testkit'
import { AgentRecorder } from '@sieve/testkit/agent-trace'
import { checksSection, SYSTEM_PROMPT, TOOLS } from '@sieve/testkit/scenarios'
import { BATCH_CHARS, BUILT_IN_TYPES, buildExample, createScrubber, scrubStream, type ScrubOptions } from '../src/index.js'
import { benchExample, corpus, sentences } from './bench-text.js'

/**
 * Scrubber throughput on one core over agent-shaped examples: a system prompt, a user turn, tool
 * calls with arguments and results, and an answer, their text drawn from the presidio sentences and
 * the hand-made corpus (keys, phones, look-alikes such as order ids and trace ids).
 */
const lines = Array.from({ length: 3000 }, (_, i) => JSON.stringify(benchExample(i)))
/** As the scrubber meets them: parsed from JSON (flat strings, where the text built above is ropes). */
const examples = lines.map((l) => JSON.parse(l) as ReturnType<typeof benchExample>)
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0)
const jsonl = `${lines.join('\n')}\n`
/** The examples in the batches `sieve scrub` reads them in: lines up to BATCH_CHARS together. */
const batches: (typeof examples)[] = [[]]
for (let i = 0, chars = 0; i < examples.length; i++) {
  batches.at(-1)!.push(examples[i]!)
  chars += lines[i]!.length
  if (chars >= BATCH_CHARS && i < examples.length - 1) {
    batches.push([])
    chars = 0
  }
}
for (const e of examples.slice(0, 200)) createScrubber().scrub(e) // warm up the JIT and the name lexicon

/** CPU seconds of `work`, awaited (`sieve scrub` is asynchronous). */
async function cpuSeconds(work: () => unknown): Promise<number> {
  const start = processCpuSeconds()
  await work()
  return processCpuSeconds() - start
}

/** Every example scrubbed once by a fresh scrubber (no strings remembered from an earlier run), in batches. */
const scrubBatches = (options: ScrubOptions = {}) => {
  const scrubber = createScrubber(options)
  for (const batch of batches) scrubber.scrubEach(batch)
}
/** The same, one example per `scrub` call (export calls it once per field of an example, with the example's placeholders). */
const scrubOneByOne = () => {
  const scrubber = createScrubber()
  for (const e of examples) scrubber.scrub(e)
}
/** `sieve scrub` on the examples as JSONL, arriving in 64 KiB chunks as from a pipe: reading, parsing, scrubbing, writing. */
const jsonlBytes = Buffer.from(jsonl)
const chunks = Array.from({ length: Math.ceil(jsonlBytes.length / 65_536) }, (_, i) => jsonlBytes.subarray(i * 65_536, (i + 1) * 65_536))
const scrubJsonl = () =>
  scrubStream(createScrubber(), Readable.from(chunks, { objectMode: false }), new Writable({ write: (_chunk, _encoding, done) => done() }), 'jsonl')
/**
 * Baseline measured in the same run: a JSON round trip of the same examples, which every export
 * pays anyway. The ratio to it says how the scrubber fares whatever else loads the machine.
 */
const roundTrip = () => {
  for (const e of examples) JSON.parse(JSON.stringify(e))
}

/** Median CPU seconds of five runs of each, the runs of all of them alternated so that each sees the same load. */
async function medians<K extends string>(work: Record<K, () => unknown>, rounds = 5): Promise<Record<K, number>> {
  const runs = Object.fromEntries(Object.keys(work).map((k) => [k, [] as number[]])) as Record<K, number[]>
  for (let r = 0; r < rounds; r++) for (const k of Object.keys(work) as K[]) runs[k].push(await cpuSeconds(work[k]))
  return Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, median(v as number[])])) as Record<K, number>
}

const alone = await medians({ batches: () => scrubBatches(), oneByOne: scrubOneByOne, jsonl: scrubJsonl, baseline: roundTrip })
const mb = bytes / 1e6
const rate = (seconds: number) => `${(mb / seconds).toFixed(1)} MB/s   ${Math.round(examples.length / seconds)} examples/s`
console.log(`bench:scrub  ${examples.length} examples, ${mb.toFixed(1)} MB of JSON, median CPU time of 5 runs on one core`)
console.log(`  alone, in batches of up to ${BATCH_CHARS / 1024} KiB as sieve scrub reads them: ${rate(alone.batches)}   (target >= 20 MB/s)`)
console.log(`  alone, one example per call:        ${rate(alone.oneByOne)}`)
console.log(`  sieve scrub, JSONL read and written: ${rate(alone.jsonl)}`)
console.log(
  `  baseline, JSON round trip of the same examples: ${(mb / alone.baseline).toFixed(1)} MB/s; scrubbing in batches takes ${(alone.batches / alone.baseline).toFixed(1)}x its time`,
)

/**
 * As part of export: the same text as real traces (recorded with the OpenTelemetry SDK, decoded by
 * the collector), each turned into a golden example (trace view, expectations, scrubbing, schema).
 * Storage reads are not included: they depend on the ClickHouse deployment.
 */
const checks = resolveChecksConfig(checksSection)
const traces = Array.from({ length: 600 }, (_, i) => {
  const user = `${sentences[(i * 3) % sentences.length]} ${corpus[(i * 11) % corpus.length]}`
  const order = { order_id: `A-${1000 + i}`, note: sentences[(i * 3 + 1) % sentences.length], delivered_days_ago: 45 }
  const answer = `${sentences[(i * 3 + 2) % sentences.length]} Refunded order A-${1000 + i}.`
  const r = new AgentRecorder('support')
  return r
    .agent(
      user,
      () =>
        r
          .llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: order.order_id } }] })
          .tool({ name: 'lookup_order', callId: 'c1', arguments: { order_id: order.order_id }, result: order })
          .llm({
            toolResults: [{ id: 'c1', response: order }],
            tools: TOOLS,
            toolCalls: [{ id: 'c2', name: 'process_refund', arguments: { order_id: order.order_id, amount: 89 } }],
          })
          .tool({ name: 'process_refund', callId: 'c2', arguments: { order_id: order.order_id, amount: 89 }, result: { status: 'refunded' } })
          .llm({ toolResults: [{ id: 'c2', response: { status: 'refunded' } }], tools: TOOLS, text: answer }),
      answer,
    )
    .trace()
})
const traceBytes = traces.reduce((n, t) => n + Buffer.byteLength(JSON.stringify(t.spans.map((s) => s.attributes))), 0)
const scores = [{ name: 'prohibited_tools', kind: 'deterministic', value: 0, passed: false }]
const exportRuns: number[] = []
// Two runs first, not measured: the alone part leaves the export code (trace view, expectations) cold.
for (let r = -2; r < 5; r++) {
  // A fresh trace object each run: trace views are cached per object and would skip the parsing.
  const copies = traces.map((t) => ({ ...t }))
  const options = { checks, scrubber: createScrubber(), bucket: 'known-failure' as const, now: new Date(), reviewAfterDays: 90 }
  const seconds = await cpuSeconds(() => copies.forEach((t) => buildExample(t, { scores }, options)))
  if (r >= 0) exportRuns.push(seconds)
}
const exportMedian = median(exportRuns)
console.log(`as part of export: ${traces.length} traces, ${(traceBytes / 1e6).toFixed(1)} MB of span attributes`)
console.log(`  ${(traceBytes / 1e6 / exportMedian).toFixed(1)} MB/s   ${Math.round(traces.length / exportMedian)} examples/s`)

/**
 * `--by-detector`: what each detector costs, as the time saved by switching it off, alternated with
 * runs of all of them so that both see the same load.
 */
if (process.argv.includes('--by-detector')) {
  console.log('by detector: CPU ms of the batched run saved by switching it off (median of 3)')
  const saved: { type: string; ms: number }[] = []
  for (const type of BUILT_IN_TYPES) {
    const m = await medians({ all: () => scrubBatches(), without: () => scrubBatches({ disable: [type] }) }, 3)
    saved.push({ type, ms: (m.all - m.without) * 1000 })
  }
  for (const { type, ms } of saved.sort((a, b) => b.ms - a.ms)) console.log(`  ${type.padEnd(16)} ${String(Math.round(ms) || 0).padStart(5)} ms`)
}
