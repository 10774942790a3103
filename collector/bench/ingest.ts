/**
 * `npm run bench:ingest`: OTLP protobuf load against `sieve up` on the embedded default, with
 * the two ceilings measured in the same run (protobuf decode alone; inserting the same spans
 * straight into the engine). Prints spans/s, request latency, peak RSS and the ratios.
 * BENCH_REQUESTS (default 160) requests of 512 spans, BENCH_CONCURRENCY (default 16) in flight.
 * With `--kafka`: the production path through a real broker instead (see ingestKafka.ts).
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SPAN_COLUMNS, createStorage, insertSpans, migrate, spanToRow, type Span } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/collector'
import { protobufBatch } from './genai-batch.js'
import { percentile, rate } from './stats.js'

if (process.argv.includes('--kafka')) {
  await import('./ingestKafka.js')
  process.exit(0)
}

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 160)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const SPANS_PER_REQUEST = 512
const INSERT_BATCH = 8192
const root = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'sieve-bench-'))

const chunks = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

console.log(`generating ${REQUESTS} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const payloads = Array.from({ length: REQUESTS }, () => protobufBatch(SPANS_PER_REQUEST))
const totalSpans = REQUESTS * SPANS_PER_REQUEST
const payloadBytes = payloads.reduce((n, p) => n + p.length, 0)

// Baseline 1: protobuf decode alone.
let decoded: Span[] = []
let started = performance.now()
for (const payload of payloads) decoded = decoded.concat(decodeProtobufRequest(payload, 'default').spans)
const decodeRate = rate(decoded.length, performance.now() - started)

// Baseline 2: the storage ceiling, the same spans inserted straight into the engine.
const storage = await createStorage({ kind: 'embedded', path: join(work, 'ceiling'), database: 'sieve' })
await migrate(storage, { retentionDays: 30 })
started = performance.now()
for (const batch of chunks(decoded, INSERT_BATCH)) {
  await storage.insert({
    table: 'spans',
    values: batch.map((s) => Object.fromEntries(spanToRow(s).map((v, i) => [SPAN_COLUMNS[i], v]))),
    format: 'JSONEachRow',
  })
}
const naiveRate = rate(decoded.length, performance.now() - started)
await storage.command({ query: 'TRUNCATE TABLE spans' })
started = performance.now()
for (const batch of chunks(decoded, INSERT_BATCH)) await insertSpans(storage, batch)
const ceilingRate = rate(decoded.length, performance.now() - started)
await storage.close()
decoded = []

// The collector: `sieve up` as a user runs it, in its own process.
const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', 'up'], {
  cwd: root,
  env: { ...process.env, SIEVE_PORT: '0', SIEVE_DATA_DIR: join(work, 'collector'), SIEVE_API_KEYS: '' },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let banner = ''
while (!/Sieve is up/.test(banner)) {
  const [chunk] = await once(child.stdout!, 'data')
  banner += String(chunk)
}
const url = /OTLP\/HTTP traces: (\S+)/.exec(banner)?.[1] as string

const latencies: number[] = []
let accepted = 0
let failed = 0
let next = 0
started = performance.now()
await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
  while (next < payloads.length) {
    const body = payloads[next++] as Buffer
    const sent = performance.now()
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body })
    await res.arrayBuffer()
    latencies.push(performance.now() - sent)
    if (res.status === 200) accepted += SPANS_PER_REQUEST
    else failed++
  }
}))
const elapsed = performance.now() - started
const metrics = await (await fetch(new URL('/metrics', url))).text()
const stored = Number(/^sieve_insert_rows_total\{table="spans"\} (\d+)/m.exec(metrics)?.[1] ?? NaN)
const seconds = (name: string, table: string): number => Number(new RegExp(`^${name}_sum\\{table="${table}"\\} (\\S+)`, 'm').exec(metrics)?.[1] ?? NaN)
const inserts = Number(/^sieve_insert_duration_seconds_count\{table="spans"\} (\d+)/m.exec(metrics)?.[1] ?? NaN)
const spanInsertSeconds = seconds('sieve_insert_duration_seconds', 'spans')
const rollupSeconds = seconds('sieve_insert_duration_seconds', 'traces')
const peakRssMb = Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024)
child.kill('SIGTERM')
await once(child, 'exit')
rmSync(work, { recursive: true, force: true })

latencies.sort((a, b) => a - b)
const acceptedRate = rate(accepted, elapsed)
const storedRate = rate(stored, elapsed)
console.log(`
Ingest benchmark: ${REQUESTS} requests x ${SPANS_PER_REQUEST} spans (${totalSpans} spans, ${(payloadBytes / 2 ** 20).toFixed(1)} MiB protobuf), ${CONCURRENCY} in flight

  baseline: protobuf decode alone            ${decodeRate} spans/s
  baseline: naive JSONEachRow insert         ${naiveRate} spans/s
  baseline: storage ceiling (Sieve's insert) ${ceilingRate} spans/s
  collector: accepted (HTTP 200)             ${acceptedRate} spans/s  (${failed} requests refused)
  collector: stored                          ${storedRate} spans/s
  request latency                            p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms
  collector peak RSS                         ${peakRssMb} MiB
  collector batches                          ${inserts} (${Math.round(stored / inserts)} spans each), ${spanInsertSeconds.toFixed(1)} s in span inserts, ${rollupSeconds.toFixed(1)} s in rollup rewrites

  stored / storage ceiling                   ${((storedRate / ceilingRate) * 100).toFixed(0)}%
  stored / decode                            ${((storedRate / decodeRate) * 100).toFixed(0)}%
  storage ceiling / naive JSONEachRow        ${(ceilingRate / naiveRate).toFixed(2)}x
`)
