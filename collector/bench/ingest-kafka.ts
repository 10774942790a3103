/**
 * `npm run bench:ingest -- --kafka`: the production path on this machine. One `sieve collector`
 * process takes OTLP protobuf and produces to Kafka; one `sieve ingester` process drains the
 * topic into the embedded ClickHouse engine. Measured in the same run:
 *   1. raw kafkajs produce of the records the collector makes of the same requests, to the same
 *      broker (the baseline: same layout, same bytes, so the ratio is the collector's own cost),
 *   2. spans/s the collector accepts (HTTP 200 = Kafka acknowledged), ingester not running,
 *   3. spans/s the ingester drains from that backlog into ClickHouse,
 *   4. end-to-end lag with both running: request sent → span stored (ClickHouse `ingested_at`).
 * Uses KAFKA_BROKERS when set, else a private broker. BENCH_REQUESTS (default 160) requests of
 * 512 spans, BENCH_CONCURRENCY (default 16) in flight; BENCH_ROUNDS (default 3) rounds of 1-2,
 * medians printed. The ingester's CPU while it drains is printed per span: with the embedded
 * engine that includes the engine's work.
 *
 * With `--http` the ingester writes over ClickHouse's HTTP interface (CLICKHOUSE_URL), the server
 * path, to testkit's stand-in in a process of its own (the same engine behind an HTTP layer written
 * in JS, no ClickHouse server being installable here): the ingester's CPU is then Sieve's side alone,
 * and the stand-in's is printed beside it, but it is not a ClickHouse server's.
 *
 * With `--vs-otelcol` each round also runs an OpenTelemetry Collector (otlpreceiver, batch processor,
 * kafkaexporter; built from Go modules, see otelcol-peer.ts) on the same requests, broker, partitions
 * and acks, before Sieve's collector in odd rounds and after it in even ones: spans/s into Kafka
 * (every record acknowledged) and CPU ms per 1,000 spans of each process (/proc), and Sieve / peer.
 * Without `go` on PATH it says so in one line and the rest runs as before.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { randomUUID } from 'node:crypto'
import { createStorage, type Config } from '@sieve/core'
import { decodeProtobufRequest, scanProtobufRequest } from '@sieve/otlp'
import { encodeTraceRecords } from '@sieve/queue'
import { protobufBatch, otlpSender, cpuSecondsOf } from '@sieve/testkit/bench'
import { rawProduce } from './kafka-produce.js'
import { otelcolBinary, startOtelcol, topicCounter } from './otelcol-peer.js'
import { median, percentile, processCpuSeconds, rate, startPrivateBroker } from '@sieve/testkit'
import { spawnClickHouseHttp, type ClickHouseHttpProcess } from '@sieve/testkit/clickhouse-http'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 160)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const SPANS_PER_REQUEST = 512
const PARTITIONS = 6
const OVER_HTTP = process.argv.includes('--http')
const root = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'sieve-bench-kafka-'))
const otelcol = process.argv.includes('--vs-otelcol') ? otelcolBinary() : undefined

const privateBroker = process.env.KAFKA_BROKERS ? undefined : await startPrivateBroker()
const brokers = privateBroker?.brokers ?? process.env.KAFKA_BROKERS!.split(',')

const children = new Set<ChildProcess>()
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')))

// BENCH_CPU_PROF=<dir>: the collector (or BENCH_CPU_PROF_ROLE, e.g. ingester) writes a V8 CPU profile there when it stops (open it in Chrome DevTools).
const PROFILE = process.env.BENCH_CPU_PROF

function sieve(command: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const profile = PROFILE && command === (process.env.BENCH_CPU_PROF_ROLE ?? 'collector') ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []
  // The node flags cli/bin/sieve starts every role with (the young generation's size), then the profiler's.
  const child = spawn(process.execPath, ['--max-semi-space-size=32', ...profile, '--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', command], {
    cwd: root,
    env: { ...process.env, SIEVE_PORT: '0', SIEVE_API_KEYS: '', KAFKA_BROKERS: brokers.join(','), ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.add(child)
  child.on('exit', () => children.delete(child))
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

async function started(run: ReturnType<typeof sieve>, banner: RegExp, url: RegExp): Promise<string> {
  while (!banner.test(run.output())) {
    if (run.child.exitCode !== null) throw new Error(`exited ${run.child.exitCode}:\n${run.output()}`)
    await Promise.race([once(run.child.stdout!, 'data'), once(run.child, 'exit')])
  }
  return url.exec(run.output())![1]!
}

async function stop(run: ReturnType<typeof sieve>): Promise<void> {
  run.child.kill('SIGTERM')
  await once(run.child, 'exit')
}

/** Spans the ingester handled, from its /metrics; a busy machine may drop a poll, an exited ingester ends the run. */
async function handled(run: ReturnType<typeof sieve>, metricsUrl: string): Promise<number> {
  if (run.child.exitCode !== null) throw new Error(`the ingester exited ${run.child.exitCode}:\n${run.output()}`)
  try {
    const text = await (await fetch(metricsUrl)).text()
    return Number(/^sieve_kafka_handled_spans_total\{group="ingester"\} (\d+)/m.exec(text)?.[1] ?? 0)
  } catch {
    return 0
  }
}

/**
 * Sends the payloads with CONCURRENCY in flight; returns when each was sent, by index, and the
 * spans of the requests answered 200 (on a busy machine a request may time out into a 503).
 */
async function send(url: string, payloads: Buffer[]): Promise<{ elapsedMs: number; sentAt: number[]; refused: number; spans: number }> {
  const sender = otlpSender(url, CONCURRENCY)
  const sentAt: number[] = []
  let refused = 0
  let spans = 0
  let next = 0
  const startedAt = performance.now()
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < payloads.length) {
        const i = next++
        sentAt[i] = Date.now()
        if ((await sender.post(payloads[i]!)) !== 200) refused++
        else spans += SPANS_PER_REQUEST
      }
    }),
  )
  const elapsedMs = performance.now() - startedAt
  sender.close()
  return { elapsedMs, sentAt, refused, spans }
}

console.log(`generating ${REQUESTS} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const total = REQUESTS * SPANS_PER_REQUEST
let recordsPerRequest = 0
// On a shared machine wall-clock rates follow the load; spans per CPU-second of the producing process much less.
const results = {
  rawPerCpu: [] as number[],
  acceptedPerCpu: [] as number[],
  raw: [] as number[],
  accepted: [] as number[],
  drained: [] as number[],
  drainedPerCpu: [] as number[],
  storePerCpu: [] as number[],
  p50: [] as number[],
  p99: [] as number[],
  refused: 0,
  sieveCpuMs: [] as number[],
  peer: [] as number[],
  peerAnswered: [] as number[],
  peerCpuMs: [] as number[],
  load: [] as number[],
}

/**
 * The otelcol peer on the round's requests: warm-up as Sieve's collector gets, then the requests;
 * spans/s and CPU until the topic holds a record per trace of every request.
 */
async function peerRound(binary: string, payloads: Buffer[], id: string): Promise<string> {
  const topic = `bench-${id}-otelcol`
  const counter = await topicCounter(brokers, topic, PARTITIONS)
  const peer = await startOtelcol(binary, join(work, `otelcol-${id}`), brokers, topic)
  children.add(peer.child)
  peer.child.on('exit', () => children.delete(peer.child))
  const tracesOf = (p: Buffer) => new Set(scanProtobufRequest(p, 'default').traceIds).size
  const landed = async (records: number) => {
    let seen = -1
    let since = performance.now()
    for (;;) {
      const now = await counter.records()
      if (now >= records) return
      if (now !== seen) [seen, since] = [now, performance.now()]
      if (performance.now() - since > 30_000) throw new Error(`the otelcol peer stalled at ${now} of ${records} records`)
      if (peer.child.exitCode !== null) throw new Error(`the otelcol peer exited ${peer.child.exitCode}`)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const warmUp = payloads.slice(0, 8)
  let expected = warmUp.reduce((n, p) => n + tracesOf(p), 0)
  if ((await send(peer.url, warmUp)).refused) throw new Error('the otelcol peer refused warm-up requests')
  await landed(expected)
  expected += payloads.reduce((n, p) => n + tracesOf(p), 0)
  const cpu = cpuSecondsOf(peer.child.pid!)
  const started = performance.now()
  const answered = await send(peer.url, payloads)
  if (answered.refused) throw new Error(`the otelcol peer refused ${answered.refused} requests`)
  await landed(expected)
  const elapsedMs = performance.now() - started
  results.peerCpuMs.push(((cpuSecondsOf(peer.child.pid!) - cpu) * 1e6) / answered.spans)
  results.peer.push(rate(answered.spans, elapsedMs))
  results.peerAnswered.push(rate(answered.spans, answered.elapsedMs))
  await peer.stop()
  await counter.close()
  return `otelcol ${results.peer.at(-1)} spans/s into Kafka (answered ${results.peerAnswered.at(-1)}), ${results.peerCpuMs.at(-1)!.toFixed(1)} CPU ms/1,000 spans`
}

for (let round = 1; round <= ROUNDS; round++) {
  const payloads = Array.from({ length: REQUESTS }, () => protobufBatch(SPANS_PER_REQUEST))
  const lagPayloads = Array.from({ length: REQUESTS }, () => protobufBatch(SPANS_PER_REQUEST))
  // The records the collector will produce for these requests (project `default`: no API keys).
  const records = payloads.flatMap((p) => encodeTraceRecords(scanProtobufRequest(p, 'default')))
  recordsPerRequest = records.length / REQUESTS
  const id = randomUUID().slice(0, 8)
  const dataDir = join(work, `round-${round}`)
  const store: ClickHouseHttpProcess | undefined = OVER_HTTP ? await spawnClickHouseHttp({ path: join(dataDir, 'clickhouse') }) : undefined
  const env: Record<string, string> = {
    SIEVE_DATA_DIR: dataDir,
    KAFKA_SPANS_TOPIC: `bench-${id}`,
    KAFKA_DEAD_LETTER_TOPIC: `bench-${id}.dead-letter`,
    KAFKA_TOPIC_PARTITIONS: String(PARTITIONS),
    ...(store ? { CLICKHOUSE_URL: store.url } : {}),
  }

  const rawCpu = processCpuSeconds()
  results.raw.push((await rawProduce(brokers, `bench-${id}-raw`, PARTITIONS, records)).spansPerSecond)
  results.rawPerCpu.push(Math.round(total / (processCpuSeconds() - rawCpu)))

  const migrate = sieve('migrate', env)
  await once(migrate.child, 'exit')
  // The collector opens storage only for its read API; the embedded engine allows one process per directory.
  const collector = sieve('collector', { ...env, SIEVE_DATA_DIR: join(work, `round-${round}-collector`) })
  const url = await started(collector, /Sieve collector is up/, /OTLP\/HTTP traces: (\S+)/)
  results.load.push(loadavg()[0]!)
  const peerFirst = otelcol && round % 2 === 1 ? await peerRound(otelcol, payloads, id) : undefined
  const warmUp = await send(url, payloads.slice(0, 8)) // connections, JIT
  const collectorCpu = cpuSecondsOf(collector.child.pid!)
  const accepted = await send(url, payloads)
  results.accepted.push(rate(accepted.spans, accepted.elapsedMs))
  results.acceptedPerCpu.push(Math.round(accepted.spans / (cpuSecondsOf(collector.child.pid!) - collectorCpu)))
  results.sieveCpuMs.push(1e6 / results.acceptedPerCpu.at(-1)!)
  results.refused += accepted.refused
  const peerLine = peerFirst ?? (otelcol ? await peerRound(otelcol, payloads, id) : undefined)

  const ingester = sieve('ingester', env)
  const metricsUrl = await started(ingester, /Sieve ingester is up/, /Metrics:\s+(\S+)/)
  const drainStart = performance.now()
  const ingesterCpu = cpuSecondsOf(ingester.child.pid!)
  const storeCpu = store ? cpuSecondsOf(store.child.pid!) : 0
  const backlog = warmUp.spans + accepted.spans
  while ((await handled(ingester, metricsUrl)) < backlog) await new Promise((r) => setTimeout(r, 50))
  results.drained.push(rate(backlog, performance.now() - drainStart))
  results.drainedPerCpu.push(Math.round(backlog / (cpuSecondsOf(ingester.child.pid!) - ingesterCpu)))
  if (store) results.storePerCpu.push(Math.round(backlog / (cpuSecondsOf(store.child.pid!) - storeCpu)))

  const lag = await send(url, lagPayloads)
  results.refused += lag.refused
  const expected = backlog + lag.spans
  while ((await handled(ingester, metricsUrl)) < expected) await new Promise((r) => setTimeout(r, 50))
  await stop(collector)
  await stop(ingester)

  // Lag per trace: when its request was sent → when its last span was stored (ingested_at).
  const sentAtOfTrace = new Map<string, number>()
  lagPayloads.forEach((p, i) => {
    for (const s of decodeProtobufRequest(p, 'default').spans) sentAtOfTrace.set(s.traceId, lag.sentAt[i]!)
  })
  const where: Config['clickhouse'] = store
    ? { kind: 'server', url: store.url, database: 'sieve' }
    : { kind: 'embedded', path: join(dataDir, 'clickhouse'), database: 'sieve' }
  const storage = await createStorage(where)
  const rows = (await (
    await storage.query({ query: 'SELECT trace_id, toUnixTimestamp64Milli(max(ingested_at)) AS at FROM spans GROUP BY trace_id', format: 'JSONEachRow' })
  ).json()) as { trace_id: string; at: string }[]
  await storage.close()
  await store?.close()
  const lags = rows
    .filter((r) => sentAtOfTrace.has(r.trace_id))
    .map((r) => Number(r.at) - sentAtOfTrace.get(r.trace_id)!)
    .sort((a, b) => a - b)
  results.p50.push(percentile(lags, 50))
  results.p99.push(percentile(lags, 99))
  console.log(
    `round ${round}: raw ${Math.round(results.raw.at(-1)!)} (${results.rawPerCpu.at(-1)}/CPU-s), ` +
      `accepted ${results.accepted.at(-1)} (${results.acceptedPerCpu.at(-1)}/CPU-s), drained ${results.drained.at(-1)} spans/s ` +
      `(${results.drainedPerCpu.at(-1)}/CPU-s of the ingester${store ? `, ${results.storePerCpu.at(-1)}/CPU-s of the stand-in` : ''}); ` +
      `lag p50 ${results.p50.at(-1)} ms, p99 ${results.p99.at(-1)} ms (${lags.length} traces)` +
      (peerLine
        ? `\n  ${peerFirst ? 'before' : 'after'} Sieve's collector: ${peerLine}; Sieve ${results.sieveCpuMs.at(-1)!.toFixed(1)} CPU ms/1,000 spans; load ${results.load.at(-1)!.toFixed(1)}`
        : ''),
  )
}

await privateBroker?.destroy()
rmSync(work, { recursive: true, force: true })

const raw = median(results.raw)
const accepted = median(results.accepted)
console.log(`
Kafka ingest benchmark: ${REQUESTS} requests x ${SPANS_PER_REQUEST} spans (${total} spans), ${CONCURRENCY} in flight, ${PARTITIONS} partitions, median of ${ROUNDS} rounds
  storage: ${OVER_HTTP ? 'ClickHouse over HTTP (CLICKHOUSE_URL) to the testkit stand-in, a process of its own' : 'the embedded engine, inside the ingester'}

  Kafka records per request (one per trace)                ${recordsPerRequest.toFixed(0)} (${(SPANS_PER_REQUEST / recordsPerRequest).toFixed(1)} spans each)
  baseline: raw kafkajs produce (same records, same broker) ${Math.round(raw)} spans/s
  one collector: accepted into Kafka (HTTP 200)            ${accepted} spans/s  (${results.refused} requests refused)
  one ingester: drained from Kafka into ClickHouse         ${median(results.drained)} spans/s
  end-to-end lag, sent → stored, both running              p50 ${median(results.p50)} ms, p99 ${median(results.p99)} ms

  collector accepted / raw kafkajs produce                 ${((accepted / raw) * 100).toFixed(0)}%

  per CPU-second of the producing process (steadier than wall-clock on a shared machine):
  raw kafkajs produce                                      ${median(results.rawPerCpu)} spans
  collector (HTTP, scan, records, kafkajs)                 ${median(results.acceptedPerCpu)} spans  (${((median(results.acceptedPerCpu) / median(results.rawPerCpu)) * 100).toFixed(0)}%)
  ingester while draining (${OVER_HTTP ? "Sieve's side: fetch, decode, rows, HTTP" : 'fetch, decode, rows and the engine'})${' '.repeat(OVER_HTTP ? 0 : 2)}  ${median(results.drainedPerCpu)} spans${
    OVER_HTTP
      ? `
  the stand-in (HTTP layer in JS and the engine)           ${median(results.storePerCpu)} spans`
      : ''
  }
`)
if (otelcol) {
  const [sieveMs, peerMs, peer] = [median(results.sieveCpuMs), median(results.peerCpuMs), median(results.peer)]
  const load = results.load.map((l) => l.toFixed(1))
  console.log(`  vs the OpenTelemetry Collector (otelcol v0.165.0: otlpreceiver, batch processor, contrib kafkaexporter v0.165.1; same
  requests, broker, ${PARTITIONS} partitions, acks=all, Snappy, a record per trace), rounds alternating which runs first, load average ${load.join(', ')}:
                                                Sieve collector     otelcol   Sieve / otelcol
  spans/s into Kafka (every record acknowledged) ${String(accepted).padStart(15)} ${String(peer).padStart(11)}   ${((accepted / peer) * 100).toFixed(0)}%
  CPU ms per 1,000 spans (the process, /proc)    ${sieveMs.toFixed(1).padStart(15)} ${peerMs.toFixed(1).padStart(11)}   ${((sieveMs / peerMs) * 100).toFixed(0)}%
  (otelcol answers 200 once the batch processor holds the spans: ${median(results.peerAnswered)} spans/s answered)
`)
}
