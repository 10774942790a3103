/**
 * `npm run bench:ingest -- --fsync`: what SIEVE_FSYNC=1 costs. Two `sieve up` processes, one with
 * fsync off (the default) and one with it on, each on a data directory of its own, take the same
 * OTLP requests; in the same rounds Sieve's insert goes straight into the engine here, into a
 * database with fsync off and one with it on (the storage ceiling), with the engine's count of
 * fsync calls to show the setting took effect.
 *
 * Rounds alternate which side goes first, and before each measurement both processes are left to
 * settle (merges and scoring of what they took before) so that neither runs on the other's CPU.
 * An fsync mostly waits for the disk rather than computing, so it shows in spans/s and latency
 * more than in spans per CPU-second; both are printed, per side, medians over the rounds.
 * BENCH_REQUESTS (default 192) requests of 512 spans, each sent to both sides; BENCH_CONCURRENCY
 * (default 16) in flight; BENCH_ROUNDS (default 6). BENCH_DIR: where the data directories go
 * (default the system's temporary directory): the disk under it decides what an fsync costs.
 */
import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Storage } from '@sieve/core'
import { createStorage, migrate, type Span } from '@sieve/core'
import { decodeProtobufRequest } from '@sieve/otlp'
import { median, percentile, rate } from '@sieve/testkit'
import { INSERT_BATCH, chunks, measureStorageCeiling, protobufBatch, sendAll, startSieveUp, storedSpans, type SieveUp } from '@sieve/testkit/bench'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 192)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const SPANS_PER_REQUEST = 512
const work = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), 'sieve-bench-fsync-'))
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')
const loadAtStart = load()

/**
 * What one fsync costs on the disk under BENCH_DIR: 64 KiB written and fsynced, median of 100, in
 * ms. The engine's fsync calls per insert (printed below) times this is what fsync adds to an
 * insert, so the figures can be scaled to another disk.
 */
function diskFsyncMs(): number {
  const file = join(work, 'fsync-probe')
  const fd = openSync(file, 'w')
  const block = Buffer.alloc(64 * 1024, 1)
  const times: number[] = []
  for (let i = 0; i < 100; i++) {
    writeSync(fd, block)
    const started = performance.now()
    fsyncSync(fd)
    times.push(performance.now() - started)
  }
  closeSync(fd)
  rmSync(file)
  return median(times)
}
const fsyncMs = diskFsyncMs()

console.log(`generating ${REQUESTS} OTLP protobuf requests of ${SPANS_PER_REQUEST} spans with the OpenTelemetry SDK...`)
const payloads = Array.from({ length: REQUESTS }, () => protobufBatch(SPANS_PER_REQUEST))
const rounds = chunks(payloads, Math.ceil(REQUESTS / ROUNDS))

type Side = 'off' | 'on'
const SIDES: Side[] = ['off', 'on']

// The ceilings: two databases of one engine in this process; fsync is a table setting.
const ceilings: Record<Side, Storage> = {
  off: await createStorage({ kind: 'embedded', path: join(work, 'ceiling'), database: 'fsync_off', fsync: false }),
  on: await createStorage({ kind: 'embedded', path: join(work, 'ceiling'), database: 'fsync_on', fsync: true }),
}
for (const side of SIDES) await migrate(ceilings[side], { retentionDays: 30 })

const collectors: Record<Side, SieveUp> = {
  off: await startSieveUp(join(work, 'off'), { SIEVE_FSYNC: '0' }),
  on: await startSieveUp(join(work, 'on'), { SIEVE_FSYNC: '1' }),
}

/** fsync calls this process's engine made so far, files and directories (system.events). */
async function engineSyncs(): Promise<number> {
  const rows = await (
    await ceilings.on.query({ query: `SELECT sum(value) AS n FROM system.events WHERE event IN ('FileSync', 'DirectorySync')`, format: 'JSONEachRow' })
  ).json<{ n: string | number }>()
  return Number(rows[0]?.n ?? 0)
}

/** Waits (at most 20 s) until neither `sieve up` uses more than 5% of a core over half a second. */
async function settle(): Promise<void> {
  for (let waited = 0; waited < 20_000; waited += 500) {
    const before = SIDES.map((s) => collectors[s].cpuSeconds())
    await sleep(500)
    if (SIDES.every((s, i) => collectors[s].cpuSeconds() - before[i]! < 0.025)) return
  }
}

const figures = Object.fromEntries(
  SIDES.map((side) => [
    side,
    {
      ceiling: [] as number[],
      ceilingPerCpu: [] as number[],
      syncsPerInsert: [] as number[],
      stored: [] as number[],
      storedPerCpu: [] as number[],
      latencies: [] as number[],
      refused: 0,
    },
  ]),
) as Record<
  Side,
  { ceiling: number[]; ceilingPerCpu: number[]; syncsPerInsert: number[]; stored: number[]; storedPerCpu: number[]; latencies: number[]; refused: number }
>

for (const [index, slice] of rounds.entries()) {
  const spans: Span[] = slice.flatMap((payload) => decodeProtobufRequest(payload, 'default').spans)
  for (const side of index % 2 === 0 ? SIDES : [...SIDES].reverse()) {
    const f = figures[side]
    await settle()
    const syncsBefore = await engineSyncs()
    const ceiling = await measureStorageCeiling(ceilings[side], spans)
    f.syncsPerInsert.push(Math.round(((await engineSyncs()) - syncsBefore) / chunks(spans, INSERT_BATCH).length))
    f.ceiling.push(ceiling.perSecond)
    f.ceilingPerCpu.push(ceiling.perCpuSecond)

    await settle()
    const collector = collectors[side]
    const storedBefore = storedSpans(await collector.metrics())
    const cpuBefore = collector.cpuSeconds()
    const sent = await sendAll(collector.url, slice, CONCURRENCY)
    const stored = storedSpans(await collector.metrics()) - storedBefore
    f.stored.push(rate(stored, sent.elapsedMs))
    f.storedPerCpu.push(Math.round(stored / (collector.cpuSeconds() - cpuBefore)))
    f.latencies.push(...sent.latencies)
    f.refused += sent.statuses.filter((status) => status !== 200).length
  }
  const round = (side: Side) =>
    `ceiling ${figures[side].ceiling.at(-1)}, stored ${figures[side].stored.at(-1)} spans/s (${figures[side].storedPerCpu.at(-1)} per CPU-s)`
  console.log(`round ${index + 1}/${rounds.length}: fsync off: ${round('off')}; on: ${round('on')}`)
}

for (const side of SIDES) {
  await collectors[side].stop()
  await ceilings[side].close()
}
rmSync(work, { recursive: true, force: true })

const m = (side: Side, key: 'ceiling' | 'ceilingPerCpu' | 'syncsPerInsert' | 'stored' | 'storedPerCpu') => median(figures[side][key])
const ratio = (key: 'ceiling' | 'ceilingPerCpu' | 'stored' | 'storedPerCpu') => {
  const perRound = figures.on[key].map((on, i) => on / figures.off[key][i]!)
  return `${(median(perRound) * 100).toFixed(0)}% (per round: ${perRound.map((r) => `${(r * 100).toFixed(0)}%`).join(', ')})`
}
const latency = (side: Side) => {
  const sorted = [...figures[side].latencies].sort((a, b) => a - b)
  return `p50 ${percentile(sorted, 50).toFixed(0)} ms, p99 ${percentile(sorted, 99).toFixed(0)} ms`
}
const row = (label: string, off: string | number, on: string | number, onOff = '') =>
  console.log(`  ${label.padEnd(40)} ${String(off).padStart(24)} ${String(on).padStart(24)}   ${onOff}`)

console.log(`
Ingest with SIEVE_FSYNC off and on: ${REQUESTS} requests x ${SPANS_PER_REQUEST} spans to each, ${CONCURRENCY} in flight, ${rounds.length} rounds alternating which goes first; medians over rounds
Data under ${work}, where one fsync of 64 KiB takes ${fsyncMs.toFixed(2)} ms (median of 100); load average at start ${loadAtStart}, at the end ${load()}
`)
row('', 'fsync off', 'fsync on', 'on / off')
row("storage ceiling (Sieve's insert), spans/s", m('off', 'ceiling'), m('on', 'ceiling'), ratio('ceiling'))
row('  per CPU-second', m('off', 'ceilingPerCpu'), m('on', 'ceilingPerCpu'), ratio('ceilingPerCpu'))
row('  fsync calls per insert of 8,192 spans', m('off', 'syncsPerInsert'), m('on', 'syncsPerInsert'))
row('collector stored, spans/s', m('off', 'stored'), m('on', 'stored'), ratio('stored'))
row('  per CPU-second', m('off', 'storedPerCpu'), m('on', 'storedPerCpu'), ratio('storedPerCpu'))
row('  request latency', latency('off'), latency('on'))
row('  requests refused', figures.off.refused, figures.on.refused)
console.log('')
