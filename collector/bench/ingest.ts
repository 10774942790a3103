/**
 * `npm run bench:ingest`: OTLP protobuf load against `sieve up` on the embedded default, with the
 * ceilings measured in the same run: protobuf decode alone, and inserting the same spans straight
 * into the engine (a naive JSONEachRow insert, and Sieve's own insert: the storage ceiling).
 *
 * The machine may be shared, so the work runs in ROUNDS, each measuring the ceilings and then the
 * collector on its own slice of the requests, one after the other; figures are medians over the
 * rounds and ratios compare measurements taken minutes, not hours, apart.
 * BENCH_REQUESTS (default 180) requests of 512 spans, BENCH_CONCURRENCY (default 16) in flight,
 * BENCH_ROUNDS (default 3).
 * With `--kafka`: the production path through a real broker instead (see ingest-kafka.ts); with
 * `--kafka --clients` the produce step alone, kafkajs against librdkafka (see produce-clients.ts).
 * With `--fsync`: `sieve up` with SIEVE_FSYNC off and on, side by side (see ingest-fsync.ts).
 * With `--soak [seconds] [--overload] [--honour-retry-after] [--kafka]`: answers, stalls and memory of `sieve up` (or a
 * `sieve collector` on Kafka) under a steady load or past its capacity (see soak.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SPAN_COLUMNS, createStorage, migrate, spanToRow, type Span } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import {
  INSERT_BATCH,
  chunks,
  measureStorageCeiling,
  protobufBatch,
  sendAll,
  THREAD_GROUPS,
  threadCpu,
  metricValue as metric,
  startSieveUp,
  storedSpans,
} from '@sieve/testkit/bench'
import { median, percentile, rate } from '@sieve/testkit'

if (process.argv.includes('--soak')) {
  await import('./soak.js')
  process.exit(0)
}
if (process.argv.includes('--kafka') && process.argv.includes('--clients')) {
  await import('./produce-clients.js')
  process.exit(0)
}
if (process.argv.includes('--kafka')) {
  await import('./ingest-kafka.js')
  process.exit(0)
}
if (process.argv.includes('--fsync')) {
  await import('./ingest-fsync.js')
  process.exit(0)
}

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 180)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SPANS_PER_REQUEST = 512
const work = mkdtempSync(join(tmpdir(), 'sieve-bench-'))

console.log(`generating ${REQUESTS} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const payloads = Array.from({ length: REQUESTS }, () => protobufBatch(SPANS_PER_REQUEST))
const payloadBytes = payloads.reduce((n, p) => n + p.length, 0)
const rounds = chunks(payloads, Math.ceil(REQUESTS / ROUNDS))

// The ceilings run in this process, on an engine of their own.
const ceilingStorage = await createStorage({ kind: 'embedded', path: join(work, 'ceiling'), database: 'sieve' })
await migrate(ceilingStorage, { retentionDays: 30 })

// The collector: `sieve up` as a user runs it, in its own process.
const sieve = await startSieveUp(join(work, 'collector'))
const { url, child } = sieve
const collectorMetrics = sieve.metrics
const childCpu = sieve.cpuSeconds

// Wall-clock rates depend on what else the machine runs; spans per CPU-second do not, so both are shown.
const figures = {
  decode: [] as number[],
  naive: [] as number[],
  ceiling: [] as number[],
  accepted: [] as number[],
  stored: [] as number[],
  ceilingPerCpu: [] as number[],
  storedPerCpu: [] as number[],
}
const latencies: number[] = []
/** CPU seconds of the collector's threads while it took the load, summed over the rounds. */
const threadSeconds = Object.fromEntries(THREAD_GROUPS.map((g) => [g, 0]))
let storedTotal = 0
let refused = 0

for (const [index, slice] of rounds.entries()) {
  // Decode alone.
  let started = performance.now()
  const spans: Span[] = []
  for (const payload of slice) for (const span of decodeProtobufRequest(payload, 'default').spans) spans.push(span)
  figures.decode.push(rate(spans.length, performance.now() - started))

  // Naive insert, then Sieve's insert, of the same spans.
  started = performance.now()
  for (const batch of chunks(spans, INSERT_BATCH)) {
    await ceilingStorage.insert({
      table: 'spans',
      values: batch.map((s) => Object.fromEntries(spanToRow(s).map((v, i) => [SPAN_COLUMNS[i], v]))),
      format: 'JSONEachRow',
    })
  }
  figures.naive.push(rate(spans.length, performance.now() - started))
  // Dropping the parts leaves no background merges to compete with what is measured next.
  await ceilingStorage.command({ query: 'TRUNCATE TABLE spans' })
  const ceiling = await measureStorageCeiling(ceilingStorage, spans)
  figures.ceiling.push(ceiling.perSecond)
  figures.ceilingPerCpu.push(ceiling.perCpuSecond)

  // The collector takes the same requests over HTTP.
  const storedBefore = storedSpans(await collectorMetrics())
  const childCpuBefore = childCpu()
  const threadsBefore = threadCpu(child.pid!)
  const sent = await sendAll(url, slice, CONCURRENCY)
  const elapsed = sent.elapsedMs
  latencies.push(...sent.latencies)
  const ok = sent.statuses.filter((status) => status === 200).length
  const accepted = ok * SPANS_PER_REQUEST
  refused += sent.statuses.length - ok
  figures.accepted.push(rate(accepted, elapsed))
  const storedNow = storedSpans(await collectorMetrics()) - storedBefore
  const threadsAfter = threadCpu(child.pid!)
  for (const g of THREAD_GROUPS) threadSeconds[g]! += threadsAfter[g] - threadsBefore[g]
  storedTotal += storedNow
  figures.stored.push(rate(storedNow, elapsed))
  figures.storedPerCpu.push(Math.round(storedNow / (childCpu() - childCpuBefore)))
  console.log(
    `round ${index + 1}/${rounds.length}: decode ${figures.decode.at(-1)}, ceiling ${figures.ceiling.at(-1)}, stored ${figures.stored.at(-1)} spans/s`,
  )
}

const metrics = await collectorMetrics()
const seconds = (table: string): number => metric(metrics, new RegExp(`^sieve_insert_duration_seconds_sum\\{table="${table}"\\} (\\S+)`, 'm'))
const inserts = metric(metrics, /^sieve_insert_duration_seconds_count\{table="spans"\} (\d+)/m)
const rewrites = metric(metrics, /^sieve_insert_duration_seconds_count\{table="traces"\} (\d+)/m)
const peakRssMb = sieve.rssMiB().peak
await sieve.stop()
await ceilingStorage.close()
rmSync(work, { recursive: true, force: true })

latencies.sort((a, b) => a - b)
const m = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, median(v)])) as Record<keyof typeof figures, number>
const ratios = figures.stored.map((s, i) => s / (figures.ceiling[i] as number))
const cpuRatios = figures.storedPerCpu.map((s, i) => s / (figures.ceilingPerCpu[i] as number))
console.log(`
Ingest benchmark: ${REQUESTS} requests x ${SPANS_PER_REQUEST} spans (${(payloadBytes / 2 ** 20).toFixed(1)} MiB protobuf), ${CONCURRENCY} in flight, ${rounds.length} rounds; medians over rounds

  baseline: protobuf decode alone            ${m.decode} spans/s
  baseline: naive JSONEachRow insert         ${m.naive} spans/s
  baseline: storage ceiling (Sieve's insert) ${m.ceiling} spans/s
  collector: accepted (HTTP 200)             ${m.accepted} spans/s  (${refused} requests refused)
  collector: stored                          ${m.stored} spans/s
  request latency                            p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms
  collector peak RSS                         ${peakRssMb} MiB
  collector batches                          ${inserts} (${Math.round(storedSpans(metrics) / inserts)} spans each); ${seconds('spans').toFixed(1)} s in span inserts, ${seconds('traces').toFixed(1)} s in ${rewrites} rollup rewrites

  storage ceiling per CPU-second             ${m.ceilingPerCpu} spans (the engine's threads included)
  collector stored per CPU-second            ${m.storedPerCpu} spans (decode, HTTP, insert, rollup, scoring, merges)
  collector CPU per stored span, by thread   ${THREAD_GROUPS.map((g) => `${g} ${Math.round((threadSeconds[g]! / storedTotal) * 1e6)} µs`).join(', ')}

  stored / storage ceiling                   ${(median(ratios) * 100).toFixed(0)}% (per round: ${ratios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})
  same, per CPU-second                       ${(median(cpuRatios) * 100).toFixed(0)}% (per round: ${cpuRatios.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})
  stored / decode                            ${((m.stored / m.decode) * 100).toFixed(0)}%
  storage ceiling / naive JSONEachRow        ${(m.ceiling / m.naive).toFixed(2)}x
`)
