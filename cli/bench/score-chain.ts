/**
 * `npm run bench:storage -- --score-chain`: where a score write's engine time goes. The same score
 * rows (every default check on generated agent traces, the scorer's own records) are written into
 * `scores` on a fresh database of the embedded engine for each variant of the views behind it, the
 * variants alternating round by round, and this process's CPU is read per thread group
 * (`threadCpu`). Variants: the chain as the migrations build it; `scores` alone; the chain without
 * the `score_latest` lookup; without each of its views; its rollups as Null tables (the views run,
 * no parts are written); the per-(trace, kind) array layout of
 * score-chain/per-trace-arrays.sql; the views' tables (or those and `scores`) merging at
 * `merge_selector_base` 20, as `spans` does on the embedded engine. Each write is measured twice:
 * first as scores of new traces, then as the same traces scored again (every key then found).
 *
 * BENCH_REQUESTS (64) requests of 512 spans; BENCH_SCORE_ROWS (2,000) rows a write: one tick of `sieve up`
 * (a write a second) at about 1,200 spans a second of these traces; BENCH_HISTORY (8): traces scored before
 * the measured writes, as multiples of the measured ones (a `score_latest` that holds history);
 * BENCH_ROUNDS (3); BENCH_VARIANTS: a comma-separated subset.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createStorage, migrate, type Span, type Trace } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords, type ScoreRecord } from '@sieve/scoring'
import { protobufBatch, THREAD_GROUPS, threadCpu, type ThreadGroup } from '@sieve/testkit/bench'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 64)
const ROWS_A_WRITE = Number(process.env.BENCH_SCORE_ROWS ?? 2000)
const HISTORY = Number(process.env.BENCH_HISTORY ?? 8)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

const NO_LOOKUP_VIEW = `CREATE MATERIALIZED VIEW score_changes_mv TO score_changes AS
SELECT toInt8(1) AS sign, project_id, trace_id, kind, scorer_name, span_id,
    tupleElement(incoming, 1) AS scorer_version, tupleElement(incoming, 2) AS trace_start_time, tupleElement(incoming, 3) AS service_name,
    tupleElement(incoming, 4) AS agent_version, tupleElement(incoming, 5) AS prompt_version, tupleElement(incoming, 6) AS model,
    tupleElement(incoming, 7) AS environment, tupleElement(incoming, 8) AS passed, tupleElement(incoming, 9) AS value,
    tupleElement(incoming, 10) AS errored, tupleElement(incoming, 11) AS cost_usd, tupleElement(incoming, 12) AS input_tokens,
    tupleElement(incoming, 13) AS output_tokens, tupleElement(incoming, 14) AS created_at
FROM (SELECT project_id, trace_id, kind, scorer_name, span_id,
        argMax((scorer_version, trace_start_time, service_name, agent_version, trace_prompt_version, model, environment,
                passed, value, toUInt8(error != ''), cost_usd, input_tokens, output_tokens, created_at), created_at) AS incoming
    FROM scores WHERE kind != 'calibration' GROUP BY project_id, trace_id, kind, scorer_name, span_id)`

/** Statements of a SQL file: separated by a `;` that ends a line, as the migrations are. */
const statementsOf = (file: string) =>
  readFileSync(new URL(file, import.meta.url), 'utf8')
    .replaceAll('{retention_days}', '30')
    .split(/;\s*\n/)
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim())

const DERIVED = ['score_latest', 'quality_5m', 'quality_1h', 'trace_quality']

/**
 * The rollups made again as Null tables, their views as 0013 makes them: the views' pipelines
 * without the parts they write or the merges those bring.
 */
function rollupsIntoNull(): string[] {
  const migration = statementsOf('../../migrations/0013_environment_rollups.sql').map((s) => s.replace(/^(--.*\n)*/, ''))
  const statement = (head: string) => migration.find((s) => s.startsWith(head))!
  const rollups = ['quality_5m', 'quality_1h', 'trace_quality']
  return [
    ...rollups.map((t) => `DROP VIEW ${t}_mv`),
    ...[...rollups].reverse().map((t) => `DROP TABLE ${t}`),
    ...rollups.map((t) => statement(`CREATE TABLE IF NOT EXISTS ${t}`).replace(/\nENGINE\s*=[\s\S]*$/, '\nENGINE = Null')),
    ...rollups.map((t) => statement(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_mv`)),
  ]
}

/** What each variant does to the chain after the migrations. */
const VARIANTS: Record<string, string[]> = {
  'chain as is': [],
  'scores alone': ['DROP VIEW score_changes_mv'],
  'without the lookup': ['DROP VIEW score_changes_mv', NO_LOOKUP_VIEW],
  'change view alone': ['DROP VIEW score_latest_mv', 'DROP VIEW quality_5m_mv', 'DROP VIEW trace_quality_mv'],
  'without score_latest_mv': ['DROP VIEW score_latest_mv'],
  'without quality_5m_mv': ['DROP VIEW quality_5m_mv'],
  'without trace_quality_mv': ['DROP VIEW trace_quality_mv'],
  'rollups into Null tables': rollupsIntoNull(),
  'per-trace arrays': statementsOf('./score-chain/per-trace-arrays.sql'),
  'views merging at base 20': DERIVED.map((t) => `ALTER TABLE ${t} MODIFY SETTING merge_selector_base = 20`),
  'all merging at base 20': ['scores', ...DERIVED].map((t) => `ALTER TABLE ${t} MODIFY SETTING merge_selector_base = 20`),
}
const chosen = process.env.BENCH_VARIANTS ? process.env.BENCH_VARIANTS.split(',') : Object.keys(VARIANTS)

const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
const spans: Span[] = []
for (let i = 0; i < REQUESTS; i++) for (const span of decodeProtobufRequest(protobufBatch(512, 1000, { varied: true }), 'default').spans) spans.push(span)
const traces = new Map<string, Trace>()
for (const span of spans) {
  const trace = traces.get(span.traceId) ?? { projectId: span.projectId, traceId: span.traceId, spans: [], complete: true }
  trace.spans.push(span)
  traces.set(span.traceId, trace)
}
const checks = resolveChecksConfig({})
const records: ScoreRecord[] = []
for (const trace of traces.values()) records.push(...traceScoreRecords(scoreTrace(trace, checks)))
const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))
const loadAtStart = load()

type Split = Record<ThreadGroup | 'all', number>
const cpuSince = (before: Record<ThreadGroup, number>): Split => {
  const after = threadCpu(process.pid)
  const split = { all: 0 } as Split
  for (const g of THREAD_GROUPS) {
    split[g] = after[g] - before[g]
    split.all += split[g]
  }
  return split
}

const path = mkdtempSync(join(tmpdir(), 'sieve-bench-score-chain-'))
let databases = 0
async function measure(variant: string): Promise<{ first: Split; again: Split }> {
  const database = `score_chain_${databases++}`
  const storage = await createStorage({ kind: 'embedded', path, database, fsync: false })
  try {
    await migrate(storage, { retentionDays: 30 })
    for (const statement of VARIANTS[variant]!) await storage.command({ query: statement })
    const sink = clickhouseScoreSink(storage)
    for (let h = 0; h < HISTORY; h++) {
      // Other traces: the ids' first characters made unique per copy.
      const past = records.map((r) => ({ ...r, traceId: `${h.toString(16).padStart(4, '0')}${r.traceId.slice(4)}` }))
      for (const batch of chunks(past, 16_000)) await sink.write(batch)
    }
    if (HISTORY) await storage.command({ query: 'OPTIMIZE TABLE score_latest FINAL' })
    const writeAll = async () => {
      const before = threadCpu(process.pid)
      for (const batch of chunks(records, ROWS_A_WRITE)) await sink.write(batch)
      return cpuSince(before)
    }
    const first = await writeAll()
    const again = await writeAll()
    return { first, again }
  } finally {
    await storage.command({ query: `DROP DATABASE IF EXISTS ${database}` })
    await storage.close()
  }
}

console.log(
  `${records.length.toLocaleString('en-US')} score rows of ${traces.size.toLocaleString('en-US')} traces (${(records.length / traces.size).toFixed(1)} a trace), ${ROWS_A_WRITE.toLocaleString('en-US')} a write, after ${HISTORY}x as many traces scored; ${ROUNDS} rounds, variants alternating`,
)
const results = new Map<string, { first: Split; again: Split }[]>()
for (let round = 0; round < ROUNDS; round++)
  for (const variant of chosen) {
    const r = await measure(variant)
    results.set(variant, [...(results.get(variant) ?? []), r])
    console.log(`  round ${round + 1} ${variant.padEnd(26)} ${r.first.all.toFixed(2)} s, again ${r.again.all.toFixed(2)} s (load ${load()})`)
  }
rmSync(path, { recursive: true, force: true })

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const rowsPerSecond = (seconds: number) => Math.round(records.length / seconds).toLocaleString('en-US')
console.log(`
CPU seconds of the ${records.length.toLocaleString('en-US')} rows, median of ${ROUNDS} (load ${loadAtStart} → ${load()})
  variant                      first write (rows per CPU-second; engine worker threads, merges)   scored again`)
for (const [variant, runs] of results) {
  const first = (k: keyof Split) => median(runs.map((r) => r.first[k]))
  const again = median(runs.map((r) => r.again.all))
  console.log(
    `  ${variant.padEnd(28)} ${first('all').toFixed(2)} s (${rowsPerSecond(first('all'))}; ${first('engine worker threads').toFixed(2)}, ${first('engine merges').toFixed(2)})`.padEnd(
      98,
    ) + `${again.toFixed(2)} s (${rowsPerSecond(again)})`,
  )
}
