/**
 * `npm run bench:judge`
 *
 * 1. Judge throughput: traces judged against the local OpenAI-compatible server answering after
 *    200 ms, at the configured concurrency, against the bound's ideal (concurrency / 0.2 s calls/s).
 * 2. Deterministic scorer throughput with the judge enabled (sampling, slices, budgets, judging in
 *    the background against the same server) versus disabled, in alternating rounds of one run,
 *    per CPU second of the scoring thread (the judge's calls run on its worker thread; the whole
 *    process's CPU is printed beside). Target: enabled >= 90% of disabled. The new-user slice counts
 *    users' traces in an embedded engine (in this process, so its queries count as the scorer's CPU).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { createStorage, insertSpans, migrate, refreshTraceRollups, type Trace } from '@sieve/core'
import { resolveChecksConfig, scoreTrace, traceScoreRecords, type ScoreSink } from '@sieve/scoring'
import { JudgeThread } from '../src/index.js'
import { JudgeStage } from '../src/stage.js'
import { JudgeMetrics, judgeSectionSchema, loadRubrics, type JudgeConfig } from '@sieve/judging'
import { median } from '@sieve/testkit'
import { supportTrace } from '@sieve/testkit/bench'
import { mainThreadCpuMs, perThread, processCpuMs } from '@sieve/testkit/bench'

const LATENCY_MS = 200
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`)
  return i > 0 ? Number(process.argv[i + 1]) : fallback
}

// The judge endpoint runs in its own process: its CPU is not the scorer's.
const child = spawn(
  process.execPath,
  ['--conditions=sieve-source', '--import', 'tsx', fileURLToPath(new URL('./fake-judge-server.ts', import.meta.url)), '--latency', String(LATENCY_MS)],
  {
    stdio: ['pipe', 'pipe', 'inherit'],
  },
)
const [firstLine] = (await once(child.stdout!, 'data')) as [Buffer]
const server = { baseURL: firstLine.toString().trim() }
const nullSink: ScoreSink = { write: async () => {} }
const rubrics = loadRubrics()
const storage = await createStorage({ kind: 'embedded', path: mkdtempSync(join(tmpdir(), 'sieve-bench-judge-')), database: 'sieve' })
await migrate(storage, { retentionDays: 1 })

function judgeConfig(section: unknown): JudgeConfig {
  return { ...judgeSectionSchema.parse(section), baseUrl: server.baseURL, apiKey: 'bench', model: 'judge-2025-01-01' }
}

let roundMetrics = new JudgeMetrics()
function newStage(config: JudgeConfig) {
  const metrics = (roundMetrics = new JudgeMetrics())
  return new JudgeStage({ config, runner: judgeThread, rubrics, sink: nullSink, metrics, storage })
}

const traces = (n: number): Trace[] =>
  Array.from({ length: n }, () => {
    const spans = supportTrace('default', Date.now())
    return { projectId: 'default', traceId: spans[0]!.traceId, spans, complete: true }
  })

// --- 1. judge throughput at the configured concurrency ---------------------------------------
const concurrency = arg('concurrency', judgeSectionSchema.parse({}).concurrency)
// One judge thread for the whole benchmark, as a scorer has one for its lifetime: each round's stage
// (fresh budgets and queue) hands it its traces, and the thread's counters go to that round's stage.
const judgeThread = JudgeThread.forConfig(judgeConfig({ concurrency }), rubrics, { inc: (name, labels, by) => roundMetrics.inc(name, labels, by) })
const rounds: number[] = []
const cpuPerCall: number[] = []
const processCpuPerCall: number[] = []
for (let round = 0; round < 3; round++) {
  const stage = newStage(judgeConfig({ concurrency, sampling: { rate: 1 }, queueSize: 10_000 }))
  await stage.ready()
  const batch = traces(concurrency * 5) // generic rubric: 4 calls a trace → 20 × concurrency calls
  const started = performance.now()
  const cpu = mainThreadCpuMs()
  const processCpu = processCpuMs()
  for (const trace of batch) stage.offer({ trace, checks: [] })
  await stage.drain()
  const seconds = (performance.now() - started) / 1000
  const calls = stage.metrics.total('calls')
  cpuPerCall.push((mainThreadCpuMs() - cpu) / calls)
  processCpuPerCall.push((processCpuMs() - processCpu) / calls)
  await stage.close()
  rounds.push(calls / seconds)
}
const ideal = concurrency / (LATENCY_MS / 1000)
console.log(
  `judge throughput at concurrency ${concurrency}, ${LATENCY_MS} ms per answer: median ${median(rounds).toFixed(1)} calls/s over ${rounds.length} rounds; ideal ${ideal.toFixed(1)} calls/s; ratio ${(median(rounds) / ideal).toFixed(3)}; CPU per call: scoring thread ${median(cpuPerCall).toFixed(2)} ms, whole process ${median(processCpuPerCall).toFixed(2)} ms`,
)

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

/**
 * Traces per CPU second of the scoring thread (deterministic checks and the judge's decisions share
 * it), so other load on the machine does not count; the whole process's rate goes to `wholeProcess`.
 */
const wholeProcess = { off: [] as number[], on: [] as number[] }
async function scoreAll(onScored?: (trace: Trace, score: ReturnType<typeof scoreTrace>) => void, finish?: () => Promise<void>): Promise<number> {
  const started = mainThreadCpuMs()
  const processStarted = processCpuMs()
  for (let i = 0; i < corpus.length; i += BATCH) {
    for (const stored of corpus.slice(i, i + BATCH)) {
      // A fresh Trace object over the same spans, as in bench:score: the scorer parses every trace it
      // scores once, and the trace view cached on a scored trace does not carry over to the next round.
      const trace = { ...stored }
      const score = scoreTrace(trace, checks)
      await nullSink.write(traceScoreRecords(score))
      onScored?.(trace, score)
    }
    await yieldToLoop()
  }
  await finish?.()
  wholeProcess[onScored ? 'on' : 'off'].push(corpus.length / ((processCpuMs() - processStarted) / 1000))
  return corpus.length / ((mainThreadCpuMs() - started) / 1000)
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
wholeProcess.off.length = 0
async function enabledRound(): Promise<number> {
  const stage = newStage(realistic)
  await stage.ready()
  judged = stage
  // The calls in flight when the loop ends are finished within the round (what still waits is skipped).
  return scoreAll(
    (trace, score) => void stage.consider({ trace, checks: score.results }),
    () => stage.close(),
  )
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
const thread = perThread ? 'scoring thread' : 'process (no per-thread CPU time on this system)'
console.log(
  `deterministic scoring, ${corpus.length} traces of 20 spans, per CPU second of the ${thread}: judge disabled median ${median(off).toFixed(0)} traces/s, enabled ${median(on).toFixed(0)} traces/s; ratio ${ratio.toFixed(3)} (target >= 0.90) ${ratio >= 0.9 ? 'OK' : 'BELOW TARGET'}`,
)
console.log(
  `  per CPU second of the whole process (worker thread and V8 helper threads included): disabled ${median(wholeProcess.off).toFixed(0)}, enabled ${median(wholeProcess.on).toFixed(0)} traces/s; ratio ${(median(wholeProcess.on) / median(wholeProcess.off)).toFixed(3)}`,
)
console.log(`  rounds, ratio enabled/disabled each: ${on.map((x, i) => (x / off[i]!).toFixed(3)).join(' ')}`)
console.log(`judge stage in the last enabled round: ${JSON.stringify(judged!.metrics.snapshot())}`)
await judgeThread.close()
child.stdin!.end()
await once(child, 'exit')
await storage.close()
