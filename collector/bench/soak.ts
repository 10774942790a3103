/**
 * `npm run bench:ingest -- --soak <seconds>` (default 300): `sieve up` on the embedded default under
 * a steady OTLP load for that long, its memory printed every 10 s: resident set size (/proc) and
 * V8 heap used (its own /metrics, `nodejs_heap_size_used_bytes`), with the spans stored and
 * requests refused in each interval. Ends with the start, end and maximum of both, the lowest
 * heap of the first and of the last minute (heap used saws up and down with garbage collection;
 * its lows are what is kept), and both again after 10 s without load. Memory that keeps climbing
 * under a load the collector keeps up with is a leak; a plateau is not.
 *
 * BENCH_SOAK_RATE spans/s (default 3,000: about half of what `sieve up` keeps up with, scoring
 * included, on the 2-core machine; 0: as fast as BENCH_CONCURRENCY requests in flight allow),
 * BENCH_CONCURRENCY (default 16) requests in flight at most. Requests of 512 spans, each one new
 * traces (fresh-ids.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { freshTraceIds, protobufBatch, otlpSender, metricValue, startSieveUp, storedSpans } from '@sieve/testkit/bench'

const argument = Number(process.argv[process.argv.indexOf('--soak') + 1])
const SECONDS = Number.isFinite(argument) && argument > 0 ? argument : 300
const RATE = Number(process.env.BENCH_SOAK_RATE ?? 3000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const SPANS_PER_REQUEST = 512
const INTERVAL_MS = 10_000
const POOL = 16

const work = mkdtempSync(join(tmpdir(), 'sieve-soak-'))
console.log(`generating ${POOL} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const pool = Array.from({ length: POOL }, () => freshTraceIds(protobufBatch(SPANS_PER_REQUEST)))
const sieve = await startSieveUp(join(work, 'collector'))
const sender = otlpSender(sieve.url, CONCURRENCY)
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ')

interface Sample {
  seconds: number
  rssMiB: number
  heapMiB: number
  stored: number
}
const MiB = 2 ** 20
async function sample(seconds: number): Promise<Sample> {
  const metrics = await sieve.metrics()
  const heap = metricValue(metrics, /^nodejs_heap_size_used_bytes (\S+)/m)
  return { seconds, rssMiB: sieve.rssMiB().now, heapMiB: Math.round(heap / MiB), stored: storedSpans(metrics) }
}
const show = (s: Sample, previous: Sample | undefined, refused: number) =>
  console.log(
    `${String(s.seconds).padStart(5)} s  RSS ${String(s.rssMiB).padStart(5)} MiB  heap used ${String(s.heapMiB).padStart(5)} MiB` +
      (previous ? `  stored ${String(Math.round((s.stored - previous.stored) / ((s.seconds - previous.seconds) || 1))).padStart(6)} spans/s  refused ${refused}` : ''),
  )

console.log(`\nSoak: ${SECONDS} s at ${RATE ? `${RATE} spans/s` : 'full speed'} (requests of ${SPANS_PER_REQUEST} spans, at most ${CONCURRENCY} in flight); load average ${load()}\n`)
const samples: Sample[] = [await sample(0)]
show(samples[0]!, undefined, 0)

let sent = 0
let refused = 0
let refusedInInterval = 0
/** Requests that got no answer, by error, after one retry. */
const failed = new Map<string, number>()
/**
 * Requests sent again once after ECONNRESET: at this pace a kept-alive connection can sit idle past
 * the server's keep-alive timeout (5 s) and be closed just as it is reused; OTLP exporters resend then.
 */
let resent = 0
let inFlight = 0
let behind = 0
const started = performance.now()
const deadline = started + SECONDS * 1000
const send = async () => {
  inFlight++
  const body = pool[sent % POOL]!(++sent)
  try {
    const status = await sender.post(body).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET') throw err
      resent++
      return sender.post(body)
    })
    if (status !== 200) {
      refused++
      refusedInInterval++
    }
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code ?? (err as Error).message
    failed.set(reason, (failed.get(reason) ?? 0) + 1)
  } finally {
    inFlight--
  }
}

// The sender: request k is due at k / rate; a request due while CONCURRENCY are in flight waits
// for one to end (counted as the collector falling behind).
const sending = (async () => {
  const interval = RATE > 0 ? (SPANS_PER_REQUEST / RATE) * 1000 : 0
  for (let k = 0; performance.now() < deadline; k++) {
    const due = started + k * interval
    if (due > performance.now()) await sleep(due - performance.now())
    if (inFlight >= CONCURRENCY) {
      if (RATE > 0) behind++
      while (inFlight >= CONCURRENCY) await sleep(1)
    }
    void send()
  }
  while (inFlight > 0) await sleep(10)
})()

for (let next = INTERVAL_MS; next <= SECONDS * 1000; next += INTERVAL_MS) {
  await sleep(Math.max(0, started + next - performance.now()))
  const s = await sample(next / 1000)
  show(s, samples.at(-1), refusedInInterval)
  refusedInInterval = 0
  samples.push(s)
}
await sending
sender.close()
await sleep(INTERVAL_MS)
const idle = await sample(Math.round((performance.now() - started) / 1000))
const peak = sieve.rssMiB().peak
await sieve.stop()
rmSync(work, { recursive: true, force: true })

const first = samples[0]!
const last = samples.at(-1)!
const max = (key: 'rssMiB' | 'heapMiB') => Math.max(...samples.map((s) => s[key]))
/** The lowest heap used sampled under load in (from, to] seconds. */
const low = (from: number, to: number) => {
  const heaps = samples.filter((s) => s.seconds > from && s.seconds <= to).map((s) => s.heapMiB)
  return heaps.length ? `${Math.min(...heaps)} MiB` : 'no sample'
}
const minute = Math.min(60, SECONDS)
console.log(`
Soak of \`sieve up\`: ${SECONDS} s at ${RATE ? `${RATE} spans/s` : 'full speed'}; ${sent} requests (${sent * SPANS_PER_REQUEST} spans) sent, ${refused} refused, ${[...failed.values()].reduce((a, b) => a + b, 0)} failed${failed.size ? ` (${[...failed].map(([r, c]) => `${r}: ${c}`).join(', ')})` : ''}, ${resent} resent after ECONNRESET${RATE ? `, ${behind} sent late (${CONCURRENCY} in flight)` : ''}
  stored                      ${last.stored} spans (${Math.round(last.stored / SECONDS)} spans/s)
  RSS                         start ${first.rssMiB} MiB, end ${last.rssMiB} MiB, max ${max('rssMiB')} MiB (peak ${peak} MiB); 10 s idle after: ${idle.rssMiB} MiB
  heap used                   start ${first.heapMiB} MiB, end ${last.heapMiB} MiB, max ${max('heapMiB')} MiB; 10 s idle after: ${idle.heapMiB} MiB
  heap used, lowest           first minute ${low(0, minute)}, last minute ${low(SECONDS - minute, SECONDS)}
  load average at the end     ${load()}
`)
