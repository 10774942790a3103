/**
 * `npm run bench:ingest -- --soak [seconds] [--duration seconds] [--overload] [--honour-retry-after]` (default 300 s):
 * `sieve up` on the embedded default under OTLP load for that long, its memory printed every 10 s:
 * resident set size (/proc) and V8 heap used (its own /metrics, `nodejs_heap_size_used_bytes`),
 * with the spans stored and the answers of each interval. Ends with every answer by kind (each
 * status, with or without `Retry-After`; connection errors such as ECONNRESET; requests unanswered
 * after REQUEST_TIMEOUT_MS), the time to an answer (all, and the 200s alone: what a sender whose
 * spans were taken waited, against OpenTelemetry exporters' 10 s default timeout; the 200s later
 * than that, and when the five slowest were sent), the `/metrics`
 * scrapes (one a second, each given 5 s as Prometheus gives it: latency and failures, timed on a
 * thread of their own), the longest main-thread stall (`nodejs_eventloop_lag_max_seconds`,
 * monitorEventLoopDelay reset at each scrape) and the sender's own (its loop's delays are in every
 * answer time it measures), RSS and heap
 * (start, end, peak, the trend of the second half, 10 s idle after), the embedded engine's memory
 * (`sieve_engine_memory_bytes`, its peak over the scrapes), and figures per CPU-second of `sieve up`
 * with the load average they were measured at. Memory that keeps climbing is a leak; a plateau is
 * not. Nothing is resent: a request without an answer is what a sender that
 * does not retry connection errors loses (each is printed with its time and whether its connection
 * was a kept-alive one reused).
 *
 * Steady (default): BENCH_SOAK_RATE spans/s (default 3,000: about half of what `sieve up` keeps up
 * with, scoring included, on the 2-core machine), BENCH_CONCURRENCY (default 16) requests in flight
 * at most, BENCH_SPANS_PER_REQUEST (default 512). `--overload`: as fast as BENCH_CONCURRENCY
 * (default 64) requests of BENCH_SPANS_PER_REQUEST (default 2,000) spans in flight allow, the load
 * of issue #40; never waiting between requests, unless `--honour-retry-after`: then each sender
 * waits out a 429's or 503's Retry-After first, as OpenTelemetry's JavaScript and Go exporters do. Each request is new
 * traces (fresh-ids.ts). BENCH_PROMPT_BYTES sets the size of each trace's system prompt (default
 * about 1 KB; with it set, each trace of the 16 requests sent over and over has a prompt of its
 * own), e.g. 32,000 with BENCH_SPANS_PER_REQUEST=150 for large spans.
 *
 * With `--kafka`: a `sieve collector` producing to a private broker (KAFKA_BROKERS when set) instead
 * of `sieve up`, nothing consuming; "stored" is then what Kafka acknowledged.
 *
 * With `--profile`: the role records each event-loop stall over 100 ms (stall-recorder.mjs) and its
 * main thread is profiled over the middle third of the run; the soak ends with what the main thread
 * did during the longest stalls of that third, and during all of them (`stallParts`): garbage
 * collection, not running (waiting for a CPU), native code, routing and answering requests, and the
 * pipeline's stages. The recorder's timer and the profiler cost the role a little CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { percentile, startPrivateBroker } from '@sieve/testkit'
import {
  freshTraceIds,
  protobufBatch,
  otlpSender,
  metricValue,
  profileWindow,
  readStalls,
  stallParts,
  stallRecorderEnv,
  startServingRole,
  storedSpans,
  type CpuProfile,
  cpuSecondsOf,
} from '@sieve/testkit/bench'

const argv = process.argv
const numberAfter = (flag: string): number | undefined => {
  const at = argv.indexOf(flag)
  const value = at >= 0 ? Number(argv[at + 1]) : NaN
  return Number.isFinite(value) && value > 0 ? value : undefined
}
const OVERLOAD = argv.includes('--overload')
const KAFKA = argv.includes('--kafka')
const PROFILE = argv.includes('--profile')
/** Each sender waits out a 429's or 503's Retry-After before its next request, as OpenTelemetry's JavaScript and Go exporters do. */
const POLITE = argv.includes('--honour-retry-after')
const SECONDS = numberAfter('--duration') ?? numberAfter('--soak') ?? 300
const RATE = OVERLOAD ? 0 : Number(process.env.BENCH_SOAK_RATE ?? 3000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? (OVERLOAD ? 64 : 16))
const SPANS_PER_REQUEST = Number(process.env.BENCH_SPANS_PER_REQUEST ?? (OVERLOAD ? 2000 : 512))
const PROMPT_BYTES = process.env.BENCH_PROMPT_BYTES ? Number(process.env.BENCH_PROMPT_BYTES) : undefined
const INTERVAL_MS = 10_000
const SCRAPE_EVERY_MS = 1000
const SCRAPE_TIMEOUT_MS = 5000
/** A request unanswered this long counts as timed out (OTLP exporters give up after 10 s by default). */
const REQUEST_TIMEOUT_MS = 60_000
/** A 200 later than this came after OpenTelemetry exporters' default timeout: the sender had given up and resent. */
const LATE_200_MS = 10_000
const POOL = 16

const work = mkdtempSync(join(tmpdir(), 'sieve-soak-'))
console.log(`generating ${POOL} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const pool = Array.from({ length: POOL }, () =>
  freshTraceIds(PROMPT_BYTES ? protobufBatch(SPANS_PER_REQUEST, PROMPT_BYTES, { promptPerTrace: true }) : protobufBatch(SPANS_PER_REQUEST)),
)
const broker = KAFKA && !process.env.KAFKA_BROKERS ? await startPrivateBroker() : undefined
const role = KAFKA ? 'collector' : 'up'
const stallLog = join(work, 'stalls.log')
const sieve = await startServingRole(role, join(work, 'collector'), {
  ...(KAFKA ? { KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? broker!.brokers.join(',') } : {}),
  ...(PROFILE ? stallRecorderEnv(stallLog) : {}),
})
/** Spans stored (`sieve up`), or acknowledged by Kafka (`sieve collector`), from its /metrics text. */
const stored = (metrics: string) => (KAFKA ? metricValue(metrics, /^sieve_kafka_produced_spans_total (\d+)/m) || 0 : storedSpans(metrics))
const sender = otlpSender(sieve.url, CONCURRENCY)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
const loadAtStart = load()
const cpuAtStart = sieve.cpuSeconds()

const MiB = 2 ** 20
/**
 * Scrapes are sent and timed on a thread of their own. Timed on this one, each carried the sender's
 * own loop delays (0.2-0.5 s under overload) as if they were the role's.
 */
const scrapeThread = new Worker(
  `const { parentPort, workerData } = require('node:worker_threads')
  parentPort.on('message', async (id) => {
    const started = performance.now()
    try {
      const res = await fetch(workerData.url, { signal: AbortSignal.timeout(workerData.timeoutMs) })
      const text = await res.text()
      parentPort.postMessage({ id, ms: performance.now() - started, text: res.ok ? text : undefined })
    } catch {
      parentPort.postMessage({ id })
    }
  })`,
  { eval: true, workerData: { url: String(new URL('/metrics', sieve.url)), timeoutMs: SCRAPE_TIMEOUT_MS } },
)
scrapeThread.on('error', (err) => {
  console.error(`the scraping thread failed: ${err.message}`)
  process.exit(1)
})
const scrapeReplies = new Map<number, (reply: { ms?: number; text?: string }) => void>()
scrapeThread.on('message', (reply: { id: number; ms?: number; text?: string }) => {
  scrapeReplies.get(reply.id)?.(reply)
  scrapeReplies.delete(reply.id)
})
let scrapeIds = 0
const timedScrape = () =>
  new Promise<{ ms?: number; text?: string }>((resolve) => {
    const id = scrapeIds++
    scrapeReplies.set(id, resolve)
    scrapeThread.postMessage(id)
  })
/** Every /metrics scrape: its latency, whether it failed, and the figures read from the last answer. */
const scrapes = { latencies: [] as number[], failed: 0, longestStallMs: 0, intervalStallMs: 0, heapPeakMiB: 0, enginePeakMiB: 0, last: '' }
async function scrape(): Promise<string | undefined> {
  const { ms, text } = await timedScrape()
  if (text === undefined || ms === undefined) {
    scrapes.failed++
    return undefined
  }
  scrapes.latencies.push(ms)
  const stallMs = metricValue(text, /^nodejs_eventloop_lag_max_seconds (\S+)/m) * 1000 || 0
  scrapes.longestStallMs = Math.max(scrapes.longestStallMs, stallMs)
  scrapes.intervalStallMs = Math.max(scrapes.intervalStallMs, stallMs)
  scrapes.heapPeakMiB = Math.max(scrapes.heapPeakMiB, Math.round(metricValue(text, /^nodejs_heap_size_used_bytes (\S+)/m) / MiB) || 0)
  scrapes.enginePeakMiB = Math.max(scrapes.enginePeakMiB, Math.round(metricValue(text, /^sieve_engine_memory_bytes (\S+)/m) / MiB) || 0)
  scrapes.last = text
  return text
}

interface Sample {
  seconds: number
  rssMiB: number
  heapMiB: number
  /** Buffers and other memory V8 tracks outside its heap (request bodies, records being sent). */
  externalMiB: number
  stored: number
}
async function sample(seconds: number): Promise<Sample> {
  const metrics = (await scrape()) ?? scrapes.last
  const heap = metricValue(metrics, /^nodejs_heap_size_used_bytes (\S+)/m)
  const external = metricValue(metrics, /^nodejs_external_memory_bytes (\S+)/m)
  return { seconds, rssMiB: sieve.rssMiB().now, heapMiB: Math.round(heap / MiB), externalMiB: Math.round(external / MiB), stored: stored(metrics) }
}

/** How long each answered request took, ms. */
const answerMs: number[] = []
/**
 * Each 200: when it was sent (seconds into the run) and how long it took. A sender that gave up
 * first (10 s by default) resends spans already taken; when the slowest were sent says where the tail comes from.
 */
const accepted: { sentS: number; ms: number }[] = []
/** Answers by kind: `200`, `429`, `429 without Retry-After`, `ECONNRESET`, `timeout`... */
const answers = new Map<string, number>()
let interval = new Map<string, number>()
const count = (kind: string) => {
  answers.set(kind, (answers.get(kind) ?? 0) + 1)
  interval.set(kind, (interval.get(kind) ?? 0) + 1)
}
const listed = (counts: Map<string, number>) =>
  [...counts]
    .sort()
    .map(([kind, n]) => `${kind}: ${n}`)
    .join(', ') || 'none'
const show = (s: Sample, previous: Sample | undefined) => {
  console.log(
    `${String(s.seconds).padStart(5)} s  RSS ${String(s.rssMiB).padStart(5)} MiB  heap used ${String(s.heapMiB).padStart(5)} MiB  external ${String(s.externalMiB).padStart(4)} MiB` +
      `  longest stall ${String(Math.round(scrapes.intervalStallMs)).padStart(4)} ms` +
      (previous
        ? `  stored ${String(Math.round((s.stored - previous.stored) / (s.seconds - previous.seconds || 1))).padStart(6)} spans/s  answers ${listed(interval)}`
        : ''),
  )
  scrapes.intervalStallMs = 0
}

const mode = RATE ? `${RATE} spans/s` : `full speed${OVERLOAD ? ' (overload)' : ''}${POLITE ? ', Retry-After honoured' : ''}`
const size = `requests of ${SPANS_PER_REQUEST} spans${PROMPT_BYTES ? ` with ${PROMPT_BYTES} B prompts` : ''}, ${(pool[0]!(0).length / 2 ** 20).toFixed(1)} MiB`
console.log(`\nSoak: ${SECONDS} s at ${mode} (${size}, at most ${CONCURRENCY} in flight); load average ${loadAtStart}\n`)
const samples: Sample[] = [await sample(0)]
show(samples[0]!, undefined)

let sent = 0
let inFlight = 0
let behind = 0
// The sender's loop: its own stalls are in every answer time measured (the scrapes have their own thread).
const senderLoop = monitorEventLoopDelay({ resolution: 20 })
senderLoop.enable()
const senderCpuAtStart = cpuSecondsOf(process.pid)
const started = performance.now()
const deadline = started + SECONDS * 1000
const send = async () => {
  inFlight++
  const body = pool[sent % POOL]!(++sent)
  let timer: NodeJS.Timeout | undefined
  const sentAt = performance.now()
  try {
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(resolve, REQUEST_TIMEOUT_MS, 'timeout')
    })
    const answer = await Promise.race([sender.send(body), timeout])
    if (answer === 'timeout') {
      count('timeout')
      return
    }
    const ms = performance.now() - sentAt
    answerMs.push(ms)
    if (answer.status === 200) {
      accepted.push({ sentS: (sentAt - started) / 1000, ms })
      count('200')
    } else {
      count(`${answer.status}${answer.retryAfter === undefined && (answer.status === 429 || answer.status === 503) ? ' without Retry-After' : ''}`)
      if (POLITE && answer.retryAfter !== undefined) await sleep(Number(answer.retryAfter) * 1000)
    }
  } catch (err) {
    // A reset on a kept-alive connection the sender reused is the race of idle timeouts, not load.
    const { code, reusedSocket } = err as NodeJS.ErrnoException & { reusedSocket?: boolean }
    count(`${code ?? (err as Error).message}${reusedSocket ? ' (reused connection)' : ''}`)
    console.log(`  ${new Date().toISOString()} ${code} after ${Math.round(performance.now() - sentAt)} ms${reusedSocket ? ' on a reused connection' : ''}`)
  } finally {
    clearTimeout(timer)
    inFlight--
  }
}

// The sender: request k is due at k / rate; a request due while CONCURRENCY are in flight waits
// for one to end (counted as the collector falling behind).
const sending = (async () => {
  const gap = RATE > 0 ? (SPANS_PER_REQUEST / RATE) * 1000 : 0
  for (let k = 0; performance.now() < deadline; k++) {
    const due = started + k * gap
    if (due > performance.now()) await sleep(due - performance.now())
    if (inFlight >= CONCURRENCY) {
      if (RATE > 0) behind++
      while (inFlight >= CONCURRENCY) await sleep(1)
    }
    void send()
  }
  while (inFlight > 0) await sleep(10)
})()

// Prometheus's view: a scrape a second, between the samples.
let scraping = true
const scraper = (async () => {
  while (scraping) {
    await scrape()
    await sleep(SCRAPE_EVERY_MS)
  }
})()

// The middle third: past the start, and done before the sender stops.
const profiling: Promise<CpuProfile> | undefined = PROFILE
  ? sleep((SECONDS * 1000) / 3).then(() => profileWindow(sieve, join(work, 'collector', 'profiles'), () => sleep((SECONDS * 1000) / 3)))
  : undefined

for (let next = INTERVAL_MS; next <= SECONDS * 1000; next += INTERVAL_MS) {
  await sleep(Math.max(0, started + next - performance.now()))
  const s = await sample(next / 1000)
  show(s, samples.at(-1))
  interval = new Map()
  samples.push(s)
}
await sending
scraping = false
await scraper
const profile = await profiling
const cpuUnderLoad = sieve.cpuSeconds() - cpuAtStart
const loadAtEnd = load()
sender.close()
await sleep(INTERVAL_MS)
const idle = await sample(Math.round((performance.now() - started) / 1000))
await scrapeThread.terminate()
const peak = sieve.rssMiB().peak
await sieve.stop()
await broker?.stop()
const stalls = profile ? stallParts(profile, readStalls(stallLog)) : []
rmSync(work, { recursive: true, force: true })

const first = samples[0]!
const last = samples.at(-1)!
const max = (key: 'rssMiB' | 'heapMiB' | 'externalMiB') => Math.max(...samples.map((s) => s[key]))
/** The lowest heap used sampled under load in (from, to] seconds. */
const low = (from: number, to: number) => {
  const heaps = samples.filter((s) => s.seconds > from && s.seconds <= to).map((s) => s.heapMiB)
  return heaps.length ? `${Math.min(...heaps)} MiB` : 'no sample'
}
/** Least-squares slope of RSS over the second half, MiB per minute: near 0 is a plateau. */
const trend = (() => {
  const half = samples.filter((s) => s.seconds >= SECONDS / 2)
  if (half.length < 3) return 'too few samples'
  const mx = half.reduce((a, s) => a + s.seconds, 0) / half.length
  const my = half.reduce((a, s) => a + s.rssMiB, 0) / half.length
  const slope = half.reduce((a, s) => a + (s.seconds - mx) * (s.rssMiB - my), 0) / half.reduce((a, s) => a + (s.seconds - mx) ** 2, 0)
  return `${(slope * 60).toFixed(1)} MiB/min`
})()
/** Percentiles of `values` as printed: whole ms, '-' when there are none. */
const percentilesOf = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  return (p: number) => (sorted.length ? percentile(sorted, p).toFixed(0) : '-')
}
const latencies = scrapes.latencies
const at = percentilesOf(latencies)
const answerAt = percentilesOf(answerMs)
const acceptedAt = percentilesOf(accepted.map((a) => a.ms))
const answered = (answers.get('200') ?? 0) + [...answers].filter(([k]) => /^(429|503)$/.test(k)).reduce((a, [, n]) => a + n, 0)
const unanswered = [...answers].filter(([k]) => !/^\d{3}/.test(k)).reduce((a, [, n]) => a + n, 0)
const minute = Math.min(60, SECONDS)
const slowest = [...accepted]
  .sort((a, b) => b.ms - a.ms)
  .slice(0, 5)
  .map((a) => `${a.sentS.toFixed(0)} s (took ${(a.ms / 1000).toFixed(1)} s)`)
  .join(', ')
console.log(`
Soak of \`sieve ${role}\`${KAFKA ? ' on Kafka' : ''}: ${SECONDS} s at ${mode}; ${sent} requests (${sent * SPANS_PER_REQUEST} spans) sent, ${CONCURRENCY} in flight at most${RATE ? `, ${behind} sent late` : ''}
  answers                     ${listed(answers)}
  unanswered                  ${unanswered} (connection errors and timeouts of ${REQUEST_TIMEOUT_MS / 1000} s)
  time to an answer           p50 ${answerAt(50)} ms, p99 ${answerAt(99)} ms, max ${answerAt(100)} ms; the 200s p50 ${acceptedAt(50)} ms, p99 ${acceptedAt(99)} ms, max ${acceptedAt(100)} ms
  200s after ${LATE_200_MS / 1000} s             ${accepted.filter((a) => a.ms > LATE_200_MS).length}; the slowest five sent at ${slowest}
  /metrics scrapes            ${latencies.length + scrapes.failed}: ${scrapes.failed} failed (${SCRAPE_TIMEOUT_MS / 1000} s timeout); latency p50 ${at(50)} ms, p99 ${at(99)} ms, max ${at(100)} ms
  longest main-thread stall   ${Math.round(scrapes.longestStallMs)} ms; the sender's own (in every answer time above) ${Math.round(senderLoop.max / 1e6)} ms, its CPU ${(cpuSecondsOf(process.pid) - senderCpuAtStart).toFixed(0)} s
  stored                      ${last.stored} spans (${Math.round(last.stored / SECONDS)} spans/s)
  RSS                         start ${first.rssMiB} MiB, end ${last.rssMiB} MiB, max ${max('rssMiB')} MiB (peak ${peak} MiB); second half trend ${trend}; 10 s idle after: ${idle.rssMiB} MiB
  heap used                   start ${first.heapMiB} MiB, end ${last.heapMiB} MiB, peak ${Math.max(max('heapMiB'), scrapes.heapPeakMiB)} MiB; 10 s idle after: ${idle.heapMiB} MiB; external peak ${max('externalMiB')} MiB
${KAFKA ? '' : `  engine memory               peak ${scrapes.enginePeakMiB} MiB (sieve_engine_memory_bytes, read once a second: a statement's peak falls between reads)\n`}  heap used, lowest           first minute ${low(0, minute)}, last minute ${low(SECONDS - minute, SECONDS)}
  per CPU-second of the role  ${Math.round(last.stored / cpuUnderLoad)} spans stored, ${((answered + unanswered) / cpuUnderLoad).toFixed(1)} requests ended (${cpuUnderLoad.toFixed(0)} CPU-s)
  load average                ${loadAtStart} at the start, ${loadAtEnd} at the end
`)

if (profile) {
  const parts = (p: Map<string, number>) =>
    [...p]
      .sort((a, b) => b[1] - a[1])
      .filter(([, ms]) => ms >= 1)
      .map(([part, ms]) => `${part} ${Math.round(ms)}`)
      .join(', ')
  const all = new Map<string, number>()
  for (const s of stalls) for (const [part, ms] of s.parts) all.set(part, (all.get(part) ?? 0) + ms)
  const total = [...all.values()].reduce((a, b) => a + b, 0)
  console.log(`Stalls over 100 ms in the profiled middle third: ${stalls.length}, ${(total / 1000).toFixed(1)} s in all; the main thread's time in them (ms):`)
  for (const s of [...stalls].sort((a, b) => b.ms - a.ms).slice(0, 8)) console.log(`  ${String(Math.round(s.ms)).padStart(5)} ms: ${parts(s.parts)}`)
  console.log(
    `  all: ${[...all]
      .sort((a, b) => b[1] - a[1])
      .map(([part, ms]) => `${part} ${((ms / total) * 100).toFixed(0)}%`)
      .join(', ')}`,
  )
}
