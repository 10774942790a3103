import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStorage, insertSpans, migrate, refreshTraceRollups, type Span, type Storage } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import {
  chunks,
  freshTraceIds,
  measureStorageCeiling,
  metricValue,
  profileWindow,
  protobufBatch,
  sendAll,
  startSieveUp,
  storedSpans,
  THREAD_GROUPS,
  stagesOf,
  threadCpu,
  type ThreadGroup,
} from '@sieve/testkit/bench'
import { until } from '@sieve/testkit'
import { tracesOf } from '@sieve/testkit/agent-trace'

/**
 * `npm run bench:pipeline`: what `sieve up` spends per 1,000 spans, stage by stage, under a fixed
 * load (judge off). The threads' CPU comes from /proc (the engine's worker threads, the libuv pool
 * where chDB runs each statement, V8's helpers, the JS main thread); the main thread's share is
 * split into stages by a CPU profile of the measured window (SIGUSR2 starts and writes it, see
 * cli/src/cpu-profile.ts), each sample charged to the stage of the function it was in (self time),
 * by source file. Every configuration runs on a fresh `sieve up` after a warm-up. The storage limit
 * is measured after each: the same spans inserted raw into a fresh engine in this process, in
 * batches of 8,192, as the ingester's under load (`measureStorageCeiling`); all-in over that is the
 * ratio the pipeline's target is set against. chDB keeps no query log, so the engine's threads are
 * split into stages by replaying the window's statements one stage at a time in that engine
 * (`engineStages`).
 *
 *   BENCH_SPANS    spans per configuration (default 20,000)
 *   BENCH_CONFIGS  comma-separated names to run (default all)
 *   BENCH_VERBOSE  1: also the source files that make up `other JS`
 */

const SPANS = Number(process.env.BENCH_SPANS ?? 20_000)
const SPANS_PER_TRACE = 8

interface Load {
  name: string
  promptBytes: number
  spansPerRequest: number
  senders: number
  /** Each trace a system prompt of its own (`promptBytes`), every request built apart; otherwise one request copied with fresh ids. */
  ownPrompts?: boolean
}

const LOADS: Load[] = [
  { name: '1kb-100x16', promptBytes: 1_000, spansPerRequest: 100, senders: 16 },
  { name: '1kb-500x16', promptBytes: 1_000, spansPerRequest: 500, senders: 16 },
  { name: '1kb-100x1', promptBytes: 1_000, spansPerRequest: 100, senders: 1 },
  { name: '8kb-100x16', promptBytes: 8_000, spansPerRequest: 100, senders: 16 },
  { name: '8kb-own-100x16', promptBytes: 8_000, spansPerRequest: 100, senders: 16, ownPrompts: true },
]

const scoredTraces = (metrics: string): number => [...metrics.matchAll(/^sieve_scored_traces_total\{[^}]*\} (\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0)

/** The statements whose engine cost `engineStages` replays, by the table their metrics name. */
const STATEMENTS = { spans: 'span insert', traces: 'rollup rewrite', scores: 'score rows + views' } as const
type StatementTable = keyof typeof STATEMENTS

/** How many inserts `sieve up` made into each table so far (`sieve_insert_duration_seconds_count`). */
function statementCounts(metrics: string): Record<StatementTable, number> {
  const count = (table: string) => metricValue(metrics, new RegExp(`^sieve_insert_duration_seconds_count\\{table="${table}"\\} (\\d+)`, 'm')) || 0
  return { spans: count('spans'), traces: count('traces'), scores: count('scores') }
}

interface EngineStage {
  /** CPU seconds of the engine's threads (merges left out). */
  seconds: number
  statements: number
  /** Spans, traces or score rows a statement. */
  perStatement: number
}

/**
 * The engine's share of each stage, which the main thread's profile cannot see: the window's spans
 * replayed into `storage` one stage after another, at the statement sizes `sieve up` used in the
 * window (its insert metrics): the span inserts, the rollup rewrites, and the score writes of the
 * same traces scored by the default checks, as its scorer scored them. Each figure is the CPU of
 * this process's libuv pool and engine worker threads: the engine's parsing, writing and views.
 */
async function engineStages(storage: Storage, spans: readonly Span[], counts: Record<StatementTable, number>): Promise<Map<StatementTable, EngineStage>> {
  const engineSeconds = () => {
    const t = threadCpu(process.pid)
    return t['libuv pool'] + t['engine worker threads']
  }
  /** `items` in as many statements as `sieve up` made, each as `run` makes it. */
  const replay = async <T>(items: readonly T[], statements: number, run: (batch: T[]) => Promise<void>): Promise<EngineStage> => {
    const perStatement = Math.ceil(items.length / Math.max(1, statements))
    const batches = chunks(items, perStatement)
    const before = engineSeconds()
    for (const batch of batches) await run(batch)
    return { seconds: engineSeconds() - before, statements: batches.length, perStatement }
  }
  // Complete, as sieve up scored them: it held the spans the warm-up sent of a trace cut at the window's start.
  const traces = tracesOf([...spans]).map((trace) => ({ ...trace, complete: true }))
  const checks = resolveChecksConfig(undefined)
  const records = traces.flatMap((trace) => traceScoreRecords(scoreTrace(trace, checks)))
  const sink = clickhouseScoreSink(storage)
  return new Map<StatementTable, EngineStage>([
    ['spans', await replay(spans, counts.spans, (batch) => insertSpans(storage, batch))],
    [
      'traces',
      await replay(
        traces.map(({ projectId, traceId }) => ({ projectId, traceId })),
        counts.traces,
        (batch) => refreshTraceRollups(storage, batch),
      ),
    ],
    ['scores', await replay(records, counts.scores, (batch) => sink.write(batch))],
  ])
}

interface Measured {
  load: Load
  threads: Record<ThreadGroup, number>
  /** CPU seconds of inserting the same spans raw (the storage limit). */
  rawInsert: number
  engine: Map<StatementTable, EngineStage>
  stages: Map<string, number>
  unstaged: Map<string, number>
  spans: number
  loadAvg: number[]
}

async function measure(load: Load): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), `sieve-bench-pipeline-${load.name}-`))
  const configFile = join(dataDir, 'sieve.yaml')
  writeFileSync(configFile, 'scorer:\n  quietPeriodMs: 500\n')
  const up = await startSieveUp(dataDir, { SIEVE_CONFIG_FILE: configFile, KAFKA_BROKERS: '', JUDGE_MODEL: '' })
  try {
    const template = load.ownPrompts ? undefined : freshTraceIds(protobufBatch(load.spansPerRequest, load.promptBytes))
    const fresh = (copy: number) => template?.(copy) ?? protobufBatch(load.spansPerRequest, load.promptBytes, { promptPerTrace: true })
    const measured: Buffer[] = []
    const requests = Math.ceil(SPANS / load.spansPerRequest)
    // Warm-up: the code paths compiled and the engine's caches filled before the window.
    const warm = Math.max(4, Math.ceil(2_000 / load.spansPerRequest))
    const tracesPerRequest = Math.ceil(load.spansPerRequest / SPANS_PER_TRACE)
    let copy = 1
    // Bodies are built before they are sent: building them apart per request takes seconds.
    const bodiesOf = (n: number) => Array.from({ length: n }, () => fresh(copy++))
    const send = async (bodies: Buffer[], keep = false) => {
      const n = bodies.length
      if (keep) measured.push(...bodies)
      const sent = await sendAll(up.url, bodies, load.senders)
      const refused = sent.statuses.filter((s) => s !== 200).length
      if (refused) throw new Error(`${refused} of ${n} requests were not stored (${sent.statuses.find((s) => s !== 200)})`)
    }
    const drained = async (requestsSent: number) => {
      const m = await up.metrics()
      return storedSpans(m) >= requestsSent * load.spansPerRequest && scoredTraces(m) >= requestsSent * tracesPerRequest
    }
    await send(bodiesOf(warm))
    const window = bodiesOf(requests)
    await until('the warm-up stored and scored', () => drained(warm), 300_000)
    const countsBefore = statementCounts(await up.metrics())
    const cpuBefore = threadCpu(up.child.pid!)
    const loadBefore = loadavg()[0]!
    const profile = await profileWindow(up, join(dataDir, 'profiles'), async () => {
      await send(window, true)
      await until('every span stored and every trace scored', () => drained(warm + requests), 300_000)
    })
    const cpuAfter = threadCpu(up.child.pid!)
    const countsAfter = statementCounts(await up.metrics())
    const counts = Object.fromEntries(Object.keys(STATEMENTS).map((t) => [t, countsAfter[t as StatementTable] - countsBefore[t as StatementTable]])) as Record<
      StatementTable,
      number
    >
    const threads = Object.fromEntries(THREAD_GROUPS.map((g) => [g, cpuAfter[g] - cpuBefore[g]])) as Record<ThreadGroup, number>
    const unstaged = new Map<string, number>()
    const loadAvg = [loadBefore, loadavg()[0]!]
    await up.stop()
    const sent = measured.flatMap((body) => decodeProtobufRequest(body, 'default').spans)
    const { rawInsert, engine } = await replayed(join(dataDir, 'raw'), sent, counts)
    return { load, threads, rawInsert, engine, stages: stagesOf(profile, unstaged), unstaged, spans: requests * load.spansPerRequest, loadAvg }
  } finally {
    await up.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * In a fresh engine (after `sieve up` stopped, so nothing else runs): CPU seconds of inserting
 * `spans` raw (the storage limit), then the engine's stages replayed (`engineStages`).
 */
async function replayed(path: string, spans: readonly Span[], counts: Record<StatementTable, number>): Promise<Pick<Measured, 'rawInsert' | 'engine'>> {
  const storage = await createStorage({ kind: 'embedded', path, database: 'sieve' })
  try {
    await migrate(storage, { retentionDays: 30 })
    const rawInsert = spans.length / (await measureStorageCeiling(storage, spans)).perCpuSecond
    return { rawInsert, engine: await engineStages(storage, spans, counts) }
  } finally {
    await storage.close()
  }
}

const perThousand = (seconds: number, spans: number) => (seconds * 1000 * 1000) / spans

function report(r: Measured): void {
  const { load, threads, stages, spans } = r
  const total = THREAD_GROUPS.reduce((n, g) => n + threads[g], 0)
  const mainMs = [...stages.values()].reduce((a, b) => a + b, 0)
  const receive = stages.get('receive + decode') ?? 0
  // The profile's samples cover the main thread; /proc's figure for it is the one scaled to.
  const scale = mainMs > 0 ? (threads['js main thread'] * 1000) / mainMs : 0
  const ms = (x: number) => (x / spans) * 1000
  console.log(
    `\n${load.name}: ${spans} spans of ~${load.promptBytes} B prompt, ${load.spansPerRequest}-span requests, ${load.senders} sender(s); load average ${r.loadAvg.map((x) => x.toFixed(1)).join(' → ')}`,
  )
  console.log(
    `  all threads              ${perThousand(total, spans).toFixed(1).padStart(8)} ms CPU per 1,000 spans  (${(total > 0 && receive > 0 ? (total * 1000) / (receive * scale) : NaN).toFixed(1)}x the receive + decode stage)`,
  )
  for (const g of THREAD_GROUPS) console.log(`    ${g.padEnd(28)}${perThousand(threads[g], spans).toFixed(1).padStart(8)}`)
  console.log(
    `  raw insert of the same spans ${perThousand(r.rawInsert, spans).toFixed(1).padStart(8)} ms  (the storage limit; all in is ${(total / r.rawInsert).toFixed(1)}x it, target 1.5x)`,
  )
  console.log("  engine by stage (replayed alone in a fresh engine at the window's statement sizes)")
  const engineTotal = threads['libuv pool'] + threads['engine worker threads'] + threads['engine merges']
  let attributed = threads['engine merges']
  for (const [table, stage] of r.engine) {
    attributed += stage.seconds
    console.log(
      `    ${STATEMENTS[table].padEnd(28)}${perThousand(stage.seconds, spans).toFixed(1).padStart(8)}   ${stage.statements} statements of ${stage.perStatement} ${table === 'scores' ? 'rows' : table}`,
    )
  }
  console.log(`    ${'merges'.padEnd(28)}${perThousand(threads['engine merges'], spans).toFixed(1).padStart(8)}`)
  console.log(
    `    ${'rest'.padEnd(28)}${perThousand(engineTotal - attributed, spans)
      .toFixed(1)
      .padStart(8)}   reads, progress, gzip: sieve up's libuv pool and engine threads less the above`,
  )
  console.log('  main thread by stage (self time, scaled to its /proc figure)')
  for (const [stage, value] of [...stages.entries()].sort((a, b) => b[1] - a[1])) {
    console.log(
      `    ${stage.padEnd(28)}${ms(value * scale)
        .toFixed(1)
        .padStart(8)}   ${((value / mainMs) * 100).toFixed(0).padStart(3)}%`,
    )
  }
  if (process.env.BENCH_VERBOSE !== '1') return
  console.log('  other JS by source file')
  for (const [file, value] of [...r.unstaged.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12)) {
    console.log(
      `    ${ms(value * scale)
        .toFixed(1)
        .padStart(8)}  ${file.replace(/^file:\/\/\/?/, '').replace(process.cwd(), '.')}`,
    )
  }
}

const wanted = process.env.BENCH_CONFIGS?.split(',')
console.log(`bench:pipeline: sieve up, judge off, ${SPANS} spans per configuration; CPU ms per 1,000 spans`)
for (const load of LOADS.filter((l) => !wanted || wanted.includes(l.name))) report(await measure(load))
