import { resolveChecksConfig } from '@sieve/scorer'
import { AgentRecorder } from '@sieve/testkit/agent-trace'
import { checksSection, SYSTEM_PROMPT, TOOLS } from '@sieve/testkit/scenarios'
import { BUILT_IN_TYPES, buildExample, createScrubber, type ScrubOptions } from '../src/index.js'
import { benchExample, corpus, sentences } from './bench-text.js'

/**
 * Scrubber throughput on one core over agent-shaped examples: a system prompt, a user turn, tool
 * calls with arguments and results, and an answer, their text drawn from the presidio sentences and
 * the hand-made corpus (keys, phones, look-alikes such as order ids and trace ids).
 */
const examples = Array.from({ length: 3000 }, (_, i) => benchExample(i))
const bytes = examples.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0)
for (const e of examples.slice(0, 200)) createScrubber().scrub(e) // warm up the JIT and the name lexicon

/** CPU seconds to scrub every example once with a fresh scrubber (no strings remembered from an earlier run). */
function scrubAll(options: ScrubOptions = {}): number {
  // CPU time, not wall time: other processes on the machine must not count against the scrubber.
  const scrubber = createScrubber(options)
  const t0 = process.cpuUsage()
  for (const e of examples) scrubber.scrub(e)
  const used = process.cpuUsage(t0)
  return (used.user + used.system) / 1e6
}

const runs: number[] = []
for (let r = 0; r < 5; r++) runs.push(scrubAll())
/**
 * Baseline measured in the same run: a JSON round trip of the same examples, which every export
 * pays anyway. The ratio to it says how the scrubber fares whatever else loads the machine.
 */
const baselineRuns: number[] = []
for (let r = 0; r < 5; r++) {
  const t0 = process.cpuUsage()
  for (const e of examples) JSON.parse(JSON.stringify(e))
  const used = process.cpuUsage(t0)
  baselineRuns.push((used.user + used.system) / 1e6)
}
const median = medianOf(runs)
const baseline = medianOf(baselineRuns)
const mb = bytes / 1e6
console.log(`bench:scrub  ${examples.length} examples, ${mb.toFixed(1)} MB of JSON, median CPU time of ${runs.length} runs on one core`)
console.log(`  ${(mb / median).toFixed(1)} MB/s   ${Math.round(examples.length / median)} examples/s   (target >= 20 MB/s)`)
console.log(`  baseline, JSON round trip of the same examples: ${(mb / baseline).toFixed(1)} MB/s; scrubbing takes ${(median / baseline).toFixed(1)}x its time`)

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
    .agent(user, () =>
      r
        .llm({ system: SYSTEM_PROMPT, user, tools: TOOLS, toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: { order_id: order.order_id } }] })
        .tool({ name: 'lookup_order', callId: 'c1', arguments: { order_id: order.order_id }, result: order })
        .llm({ toolResults: [{ id: 'c1', response: order }], tools: TOOLS, toolCalls: [{ id: 'c2', name: 'process_refund', arguments: { order_id: order.order_id, amount: 89 } }] })
        .tool({ name: 'process_refund', callId: 'c2', arguments: { order_id: order.order_id, amount: 89 }, result: { status: 'refunded' } })
        .llm({ toolResults: [{ id: 'c2', response: { status: 'refunded' } }], tools: TOOLS, text: answer }),
    answer)
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
  const t0 = process.cpuUsage()
  for (const t of copies) buildExample(t, scores, options)
  const used = process.cpuUsage(t0)
  if (r >= 0) exportRuns.push((used.user + used.system) / 1e6)
}
const exportMedian = medianOf(exportRuns)
console.log(`as part of export: ${traces.length} traces, ${(traceBytes / 1e6).toFixed(1)} MB of span attributes`)
console.log(`  ${(traceBytes / 1e6 / exportMedian).toFixed(1)} MB/s   ${Math.round(traces.length / exportMedian)} examples/s`)

/**
 * `--by-detector`: what each detector costs, as the time saved by switching it off, alternated with
 * runs of all of them so that both see the same load.
 */
if (process.argv.includes('--by-detector')) {
  console.log('by detector: CPU ms of the alone run saved by switching it off (median of 3)')
  const saved = BUILT_IN_TYPES.map((type) => {
    const all: number[] = []
    const without: number[] = []
    for (let r = 0; r < 3; r++) {
      all.push(scrubAll())
      without.push(scrubAll({ disable: [type] }))
    }
    return { type, ms: (medianOf(all) - medianOf(without)) * 1000 }
  })
  for (const { type, ms } of saved.sort((a, b) => b.ms - a.ms)) console.log(`  ${type.padEnd(16)} ${String(Math.round(ms) || 0).padStart(5)} ms`)
}

function medianOf(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
}
