/**
 * `npm run bench:judge`
 *
 * 1. Judge throughput: traces judged against the local OpenAI-compatible server answering after
 *    200 ms, at the configured concurrency, against the bound's ideal (concurrency / 0.2 s calls/s).
 * 2. Deterministic scorer throughput with the judge enabled (sampling, slices, budgets, judging in
 *    the background against the same server) versus disabled, in alternating rounds of one run.
 *    Target: enabled >= 90% of disabled. The new-user slice counts users' traces in an embedded
 *    engine (in this process, so its queries count as the scorer's CPU).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { createStorage, insertSpans, migrate, refreshTraceRollups, type Trace } from '@sieve/core'
import {
  JudgeClient,
  JudgeMetrics,
  JudgeStage,
  judgeSectionSchema,
  loadRubrics,
  resolveChecksConfig,
  scoreTrace,
  traceScoreRecords,
  type JudgeConfig,
  type ScoreSink,
} from '../src/index.js'
import { supportTrace } from './support-trace.js'

const LATENCY_MS = 200
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}

// The judge endpoint runs in its own process: its CPU is not the scorer's.
const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', fileURLToPath(new URL('./fake-judge-server.ts', import.meta.url)), '--latency', String(LATENCY_MS)], {
  stdio: ['pipe', 'pipe', 'inherit'],
})
const [firstLine] = (await once(child.stdout!, 'data')) as [Buffer]
const server = { baseURL: firstLine.toString().trim() }
const nullSink: ScoreSink = { write: async () => {} }
const rubrics = loadRubrics()
const storage = await createStorage({ kind: 'embedded', path: mkdtempSync(join(tmpdir(), 'sieve-bench-judge-')), database: 'sieve' })
await migrate(storage, { retentionDays: 1 })

function judgeConfig(section: unknown): JudgeConfig {
  return { ...judgeSectionSchema.parse(section), baseUrl: server.baseURL, apiKey: 'bench', model: 'judge-2025-01-01' }
}

function newStage(config: JudgeConfig) {
  const metrics = new JudgeMetrics()
  return new JudgeStage({ config, client: new JudgeClient(config, metrics), rubrics, sink: nullSink, metrics, storage })
}

const traces = (n: number): Trace[] =>
  Array.from({ length: n }, () => {
    const spans = supportTrace('default', Date.now())
    return { projectId: 'default', traceId: spans[0]!.traceId, spans, complete: true }
  })

// --- 1. judge throughput at the configured concurrency ---------------------------------------
const concurrency = arg('concurrency', judgeSectionSchema.parse({}).concurrency)
const rounds: number[] = []
const cpuPerCall: number[] = []
for (let round = 0; round < 3; round++) {
  const stage = newStage(judgeConfig({ concurrency, sampling: { rate: 1 }, queueSize: 10_000 }))
  const batch = traces(concurrency * 5) // generic rubric: 4 calls a trace → 20 × concurrency calls
  const started = performance.now()
  const cpu = process.cpuUsage()
  for (const trace of batch) stage.offer({ trace, checks: [] })
  await stage.drain()
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  rounds.push(stage.metrics.total('calls') / seconds)
  cpuPerCall.push((used.user + used.system) / 1000 / stage.metrics.total('calls'))
}
const ideal = concurrency / (LATENCY_MS / 1000)
console.log(`judge throughput at concurrency ${concurrency}, ${LATENCY_MS} ms per answer: median ${median(rounds).toFixed(1)} calls/s over ${rounds.length} rounds; ideal ${ideal.toFixed(1)} calls/s; ratio ${(median(rounds) / ideal).toFixed(3)}; scorer-side CPU ${median(cpuPerCall).toFixed(2)} ms per call`)

// --- 2. deterministic scorer throughput, judge enabled vs disabled ---------------------------
const checks = resolveChecksConfig(undefined)
const corpus = traces(arg('traces', 10_000))
// Five traces a user, stored as the ingester would (root spans suffice for the users' histories).
const roots = corpus.map((t, i) => {
  const root = t.spans.find((s) => s.parentSpanId === '')!
  root.attributes['user.id'] = `user-${i % Math.ceil(corpus.length / 5)}`
  return { ...root, attributes: { 'user.id': root.attributes['user.id'] } }
})
await insertSpans(storage, roots)
await refreshTraceRollups(storage, roots)
const BATCH = 1000 // the scorer's writeBatchTraces: it yields to the event loop between batches

/** Traces per CPU second of this process (scorer and judge stage share it), so other load on the machine does not count. */
async function scoreAll(onScored?: (trace: Trace, score: ReturnType<typeof scoreTrace>) => void, finish?: () => Promise<void>): Promise<number> {
  const started = process.cpuUsage()
  for (let i = 0; i < corpus.length; i += BATCH) {
    for (const trace of corpus.slice(i, i + BATCH)) {
      const score = scoreTrace(trace, checks)
      await nullSink.write(traceScoreRecords(score))
      onScored?.(trace, score)
    }
    await yieldToLoop()
  }
  await finish?.()
  const used = process.cpuUsage(started)
  return corpus.length / ((used.user + used.system) / 1e6)
}

const realistic = judgeConfig({
  concurrency,
  sampling: {
    rate: 0.05,
    slices: [
      { name: 'tool-errors', match: { kind: 'tool_error' } },
      { name: 'failed-checks', match: { kind: 'failed_check' }, rate: 0.2, stopAt: 0.8 },
      { name: 'new-users', match: { kind: 'new_user', firstTraces: 3 } },
      { name: 'long', match: { kind: 'long_conversation', minTurns: 8 } },
    ],
  },
  budgets: { callsPerMinute: 600 },
})
const off: number[] = []
const on: number[] = []
let judged: JudgeStage | undefined
await scoreAll() // warm-up
async function enabledRound(): Promise<number> {
  const stage = newStage(realistic)
  judged = stage
  // The calls in flight when the loop ends are finished within the round (what still waits is skipped).
  return scoreAll((trace, score) => void stage.consider({ trace, checks: score.results }), () => stage.close())
}
// Alternating which goes first, so garbage one round leaves behind is not always paid by the same side.
for (let round = 0; round < 7; round++) {
  if (round % 2 === 0) {
    off.push(await scoreAll())
    on.push(await enabledRound())
  } else {
    on.push(await enabledRound())
    off.push(await scoreAll())
  }
}
const ratio = median(on) / median(off)
console.log(`deterministic scoring, ${corpus.length} traces of 20 spans, per CPU second: judge disabled median ${median(off).toFixed(0)} traces/s, enabled ${median(on).toFixed(0)} traces/s; ratio ${ratio.toFixed(3)} (target >= 0.90) ${ratio >= 0.9 ? 'OK' : 'BELOW TARGET'}`)
console.log(`judge stage in the last enabled round: ${JSON.stringify(judged!.metrics.snapshot())}`)
child.stdin!.end()
await once(child, 'exit')
await storage.close()
