/**
 * `npm run bench:storage`: what a span costs ClickHouse, for the capacity model (deploy/README.md,
 * "Sizing"). Agent traffic with conversations (`protobufBatch(..., { varied: true })`: one system
 * prompt per agent, each trace's own user and assistant turns, each model call's input holding the
 * turns before it) is decoded, then, on the embedded engine, whose threads this process's CPU time
 * includes: inserted into `spans` (8,192 a statement, as the ingester's batches run), rolled up into
 * `traces`, scored by every default check into `scores` and the views behind it. Then every table is
 * merged (`OPTIMIZE ... FINAL`, the steady state), and `system.columns` / `system.parts` give bytes
 * on disk per span, per table and per column, with the compression ratio.
 *
 * BENCH_REQUESTS (default 128) requests of 512 spans; BENCH_PROMPT_BYTES (default 1,000) of system prompt.
 * `-- --score-chain`: the score write alone, view by view (score-chain.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStorage, insertSpans, migrate, refreshTraceRollups, spanToRow, type Span, type Trace } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords, type ScoreRecord } from '@sieve/scoring'
import { processCpuSeconds } from '@sieve/testkit'
import { protobufBatch } from '@sieve/testkit/bench'

if (process.argv.includes('--score-chain')) {
  // Where a score write's engine time goes, view by view (score-chain.ts).
  await import('./score-chain.js')
  process.exit(0)
}

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 128)
const PROMPT_BYTES = Number(process.env.BENCH_PROMPT_BYTES ?? 1000)
const INSERT_BATCH = 8192
const ROLLUP_BATCH = 2000
const SCORE_BATCH = 1000
const TABLES = ['spans', 'traces', 'scores', 'score_latest', 'trace_quality', 'quality_5m', 'quality_1h']

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
const loadAtStart = load()
console.log(`generating and decoding ${REQUESTS} OTLP requests of 512 spans with conversations...`)
const spans: Span[] = []
for (let i = 0; i < REQUESTS; i++)
  for (const span of decodeProtobufRequest(protobufBatch(512, PROMPT_BYTES, { varied: true }), 'default').spans) spans.push(span)
const otlpBytes = protobufBatch(512, PROMPT_BYTES, { varied: true }).length / 512

const work = mkdtempSync(join(tmpdir(), 'sieve-bench-storage-'))
const storage = await createStorage({ kind: 'embedded', path: join(work, 'engine'), database: 'sieve' })
await migrate(storage, { retentionDays: 30 })

/** CPU seconds (this process: JS and the engine's threads) that `work` took. */
async function cpu(work: () => Promise<void>): Promise<number> {
  const started = processCpuSeconds()
  await work()
  return processCpuSeconds() - started
}
const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

// What the ingester's JS does per span on the server path (build the row, write it as JSON); the rest of an insert is the server's.
let payloadBytes = 0
const rowsCpu = await cpu(async () => {
  for (const batch of chunks(spans, INSERT_BATCH)) {
    let payload = ''
    for (const span of batch) payload += `${JSON.stringify(spanToRow(span))}\n`
    payloadBytes += payload.length
  }
})
const insertCpu = await cpu(async () => {
  for (const batch of chunks(spans, INSERT_BATCH)) await insertSpans(storage, batch)
})

const traces = new Map<string, Trace>()
for (const span of spans) {
  const trace = traces.get(span.traceId) ?? { projectId: span.projectId, traceId: span.traceId, spans: [], complete: true }
  trace.spans.push(span)
  traces.set(span.traceId, trace)
}
const rollupCpu = await cpu(async () => {
  for (const keys of chunks(
    [...traces.values()].map(({ projectId, traceId }) => ({ projectId, traceId })),
    ROLLUP_BATCH,
  ))
    await refreshTraceRollups(storage, keys)
})

const checks = resolveChecksConfig({})
const records: ScoreRecord[] = []
for (const trace of traces.values()) records.push(...traceScoreRecords(scoreTrace(trace, checks)))
const sink = clickhouseScoreSink(storage)
const scoresCpu = await cpu(async () => {
  for (const batch of chunks(records, SCORE_BATCH * 16)) await sink.write(batch)
})

const mergeCpu = await cpu(async () => {
  for (const table of TABLES) await storage.command({ query: `OPTIMIZE TABLE ${table} FINAL` })
})

interface ColumnBytes {
  table: string
  name: string
  compressed: number
  uncompressed: number
}
const columns = await (
  await storage.query({
    query: `SELECT table, name, data_compressed_bytes AS compressed, data_uncompressed_bytes AS uncompressed
    FROM system.columns WHERE database = currentDatabase() AND table IN {tables:Array(String)}`,
    query_params: { tables: TABLES },
    format: 'JSONEachRow',
  })
).json<ColumnBytes>()
const onDisk = new Map(
  (
    await (
      await storage.query({
        // Per table from the parts: a small table's parts are compact, and those keep no per-column sizes.
        query: `SELECT table, sum(bytes_on_disk) AS bytes, sum(data_compressed_bytes) AS compressed, sum(data_uncompressed_bytes) AS uncompressed
    FROM system.parts WHERE database = currentDatabase() AND active AND table IN {tables:Array(String)} GROUP BY table`,
        query_params: { tables: TABLES },
        format: 'JSONEachRow',
      })
    ).json<{ table: string; bytes: string; compressed: string; uncompressed: string }>()
  ).map((r) => [r.table, { bytes: Number(r.bytes), ratio: Number(r.uncompressed) / Math.max(1, Number(r.compressed)) }]),
)
await storage.close()
rmSync(work, { recursive: true, force: true })

const n = spans.length
const perCpuSecond = (count: number, seconds: number) => Math.round(count / seconds).toLocaleString('en-US')
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']
function bytes(b: number): string {
  let unit = 0
  while (b >= 1024 && unit < UNITS.length - 1) {
    b /= 1024
    unit++
  }
  return `${b.toFixed(unit ? 1 : 0)} ${UNITS[unit]}`
}

console.log(`
Storage cost of ${n.toLocaleString('en-US')} spans in ${traces.size.toLocaleString('en-US')} traces (${Math.round(otlpBytes)} B of OTLP protobuf a span), embedded engine; load average ${loadAtStart} → ${load()}

per CPU-second (JS and engine threads)
  rows built and written as JSON (the ingester's part) ${perCpuSecond(n, rowsCpu)} spans (${Math.round(payloadBytes / n)} B a span)
  insert into spans (batches of ${INSERT_BATCH}, rows included) ${perCpuSecond(n, insertCpu)} spans
  rollup rewrite into traces            ${perCpuSecond(traces.size, rollupCpu)} traces (${perCpuSecond(n, rollupCpu)} spans)
  score rows into scores and its views  ${perCpuSecond(records.length, scoresCpu)} rows (${(records.length / traces.size).toFixed(1)} a trace; ${perCpuSecond(n, scoresCpu)} spans)
  merging every table once (OPTIMIZE FINAL) ${mergeCpu.toFixed(1)} s CPU: ${perCpuSecond(n, mergeCpu)} spans

on disk after merges       bytes on disk   per span   compressed / raw`)
let total = 0
for (const table of TABLES) {
  const { bytes: disk, ratio } = onDisk.get(table) ?? { bytes: 0, ratio: 0 }
  total += disk
  console.log(`  ${table.padEnd(24)} ${bytes(disk).padStart(13)}   ${(disk / n).toFixed(1).padStart(8)}   ${ratio.toFixed(1)}x`)
}
console.log(`  ${'all'.padEnd(24)} ${bytes(total).padStart(13)}   ${(total / n).toFixed(1).padStart(8)}

spans: the largest columns        compressed per span   raw per span   ratio`)
const spanColumns = columns.filter((c) => c.table === 'spans').sort((a, b) => Number(b.compressed) - Number(a.compressed))
for (const c of spanColumns.slice(0, 8)) {
  console.log(
    `  ${c.name.padEnd(30)} ${(Number(c.compressed) / n).toFixed(1).padStart(10)} B ${(Number(c.uncompressed) / n).toFixed(1).padStart(12)} B   ${(Number(c.uncompressed) / Math.max(1, Number(c.compressed))).toFixed(1)}x`,
  )
}
const perDay = (spansPerSecond: number) => bytes((total / n) * spansPerSecond * 86_400)
console.log(`
disk per day (these spans, scores and rollups; one replica): 1,000 spans/s ${perDay(1_000)}, 10,000 ${perDay(10_000)}, 100,000 ${perDay(100_000)}, 1,000,000 ${perDay(1_000_000)}`)
