/**
 * `npm run bench:idle [-- --kafka]`: what Sieve costs with no traffic at all, the cost every
 * deployment pays around the clock. `sieve up` on the embedded default (or, with `--kafka`, a `sieve
 * collector` producing to a private Kafka broker, KAFKA_BROKERS when set) is started, left
 * BENCH_SETTLE_SECONDS (default 45: V8's memory reducer runs its full collections about 25 s after
 * start) to finish starting, then watched for BENCH_SECONDS (default 60):
 * CPU milliseconds per second by kind of thread (/proc), and RSS. Target: under 1 ms of CPU a second
 * on the JS main thread.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startPrivateBroker, spawnSieve, roleMetricsUrl } from '@sieve/testkit'
import { rssMiBOf, startSieveUp, THREAD_GROUPS, threadCpu } from '@sieve/testkit/bench'

const KAFKA = process.argv.includes('--kafka')
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 45)
const seconds = Number(process.env.BENCH_SECONDS ?? 60)
const work = mkdtempSync(join(tmpdir(), 'sieve-bench-idle-'))

/** The process watched: its pid, its resident set now, and how to stop it. */
interface Watched {
  name: string
  pid: number
  rssMiB(): number
  stop(): Promise<void>
}

async function sieveUp(): Promise<Watched> {
  const sieve = await startSieveUp(join(work, 'data'))
  return { name: 'sieve up', pid: sieve.child.pid!, rssMiB: () => sieve.rssMiB().now, stop: () => sieve.stop() }
}

async function kafkaCollector(): Promise<Watched> {
  const broker = process.env.KAFKA_BROKERS ? undefined : await startPrivateBroker()
  const brokers = process.env.KAFKA_BROKERS ?? broker!.brokers.join(',')
  const collector = spawnSieve('collector', { KAFKA_BROKERS: brokers, SIEVE_DATA_DIR: join(work, 'collector') })
  await roleMetricsUrl(collector, 'collector')
  const pid = collector.child.pid!
  return {
    name: 'sieve collector (Kafka)',
    pid,
    rssMiB: () => rssMiBOf(pid).now,
    async stop() {
      collector.child.kill('SIGTERM')
      await once(collector.child, 'exit')
      await broker?.stop()
    },
  }
}

const watched = KAFKA ? await kafkaCollector() : await sieveUp()
try {
  await sleep(settleSeconds * 1000)
  const before = threadCpu(watched.pid)
  await sleep(seconds * 1000)
  const after = threadCpu(watched.pid)
  const msPerSecond = (group: (typeof THREAD_GROUPS)[number]) => ((after[group] - before[group]) * 1000) / seconds
  const total = THREAD_GROUPS.reduce((sum, group) => sum + msPerSecond(group), 0)
  console.log(`${watched.name}, idle for ${seconds} s after ${settleSeconds} s to start (load average ${loadavg()[0]!.toFixed(1)}):`)
  for (const group of THREAD_GROUPS) console.log(`  ${group.padEnd(28)} ${msPerSecond(group).toFixed(1)} ms CPU/s`)
  console.log(`  ${'all threads'.padEnd(28)} ${total.toFixed(1)} ms CPU/s (target: main thread < 1)`)
  console.log(`  RSS                          ${watched.rssMiB()} MiB`)
} finally {
  await watched.stop()
  rmSync(work, { recursive: true, force: true })
}
