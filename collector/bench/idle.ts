/**
 * `npm run bench:idle`: what `sieve up` costs with no traffic at all, the cost every deployment pays
 * around the clock. `sieve up` on the embedded default is started, left BENCH_SETTLE_SECONDS (default
 * 20) to finish starting, then watched for BENCH_SECONDS (default 60): CPU milliseconds per second by
 * kind of thread (/proc), and RSS. Target: under 1 ms of CPU a second on the JS main thread.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { startSieveUp, THREAD_GROUPS, threadCpu } from '@sieve/testkit/bench'

const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 20)
const seconds = Number(process.env.BENCH_SECONDS ?? 60)
const work = mkdtempSync(join(tmpdir(), 'sieve-bench-idle-'))
const sieve = await startSieveUp(join(work, 'data'))
try {
  await sleep(settleSeconds * 1000)
  const pid = sieve.child.pid!
  const before = threadCpu(pid)
  await sleep(seconds * 1000)
  const after = threadCpu(pid)
  const msPerSecond = (group: (typeof THREAD_GROUPS)[number]) => ((after[group] - before[group]) * 1000) / seconds
  const total = THREAD_GROUPS.reduce((sum, group) => sum + msPerSecond(group), 0)
  console.log(`sieve up, idle for ${seconds} s after ${settleSeconds} s to start (load average ${loadavg()[0]!.toFixed(1)}):`)
  for (const group of THREAD_GROUPS) console.log(`  ${group.padEnd(28)} ${msPerSecond(group).toFixed(1)} ms CPU/s`)
  console.log(`  ${'all threads'.padEnd(28)} ${total.toFixed(1)} ms CPU/s (target: main thread < 1)`)
  console.log(`  RSS                          ${sieve.rssMiB().now} MiB`)
} finally {
  await sieve.stop()
  rmSync(work, { recursive: true, force: true })
}
