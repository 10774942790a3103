import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cpuSecondsOf } from './thread-cpu.js'

/**
 * `sieve up` as a user runs it, in a child process of its own, for the ingest benchmarks (the
 * default run, `--fsync` and `--soak`): the collector on the embedded default, measured from
 * outside through its `/metrics` and `/proc`, so the benchmark's own work never counts as its.
 */
export interface SieveUp {
  /** The OTLP/HTTP traces URL it printed. */
  url: string
  child: ChildProcess
  metrics(): Promise<string>
  /** CPU seconds it used so far, all its threads (the engine's included). */
  cpuSeconds(): number
  /** Resident set size now, and its peak so far, in MiB (/proc: VmRSS, VmHWM). */
  rssMiB(): { now: number; peak: number }
  stop(): Promise<void>
}

const root = fileURLToPath(new URL('../../../', import.meta.url))

export function startSieveUp(dataDir: string, env: Record<string, string> = {}): Promise<SieveUp> {
  return startServingRole('up', dataDir, env)
}

/** `sieve <role>` for a role that serves OTLP/HTTP (`up`, `collector`), as `startSieveUp` starts `sieve up`. */
export async function startServingRole(role: 'up' | 'collector', dataDir: string, env: Record<string, string> = {}): Promise<SieveUp> {
  // Through the bin, as users start it: its node flags (the young generation's size) count in the figures.
  // The in-process queue unless `env` names brokers: one in the environment (the test suite runs
  // under deploy/local/with-broker.sh) would put `sieve up` on Kafka, where queue bounds do not apply.
  const child = spawn(join(root, 'cli/bin/sieve'), [role], {
    cwd: root,
    env: { ...process.env, SIEVE_PORT: '0', SIEVE_DATA_DIR: dataDir, SIEVE_API_KEYS: '', KAFKA_BROKERS: '', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let banner = ''
  const exited = once(child, 'exit').then(() => undefined)
  while (!/Sieve (\w+ )?is up/.test(banner)) {
    const chunk = await Promise.race([once(child.stdout!, 'data'), exited])
    if (chunk === undefined) throw new Error(`sieve ${role} exited ${child.exitCode} before it was up:\n${banner}`)
    banner += String(chunk[0])
  }
  child.stdout!.resume()
  const url = /OTLP\/HTTP traces: (\S+)/.exec(banner)?.[1] as string
  return {
    url,
    child,
    metrics: async () => (await fetch(new URL('/metrics', url))).text(),
    cpuSeconds: () => cpuSecondsOf(child.pid!),
    rssMiB: () => rssMiBOf(child.pid!),
    async stop() {
      child.kill('SIGTERM')
      if (child.exitCode === null) await once(child, 'exit')
    },
  }
}

/** The first number `pattern` captures in `text` (Prometheus text, /proc files); NaN when absent. */
/** A process's resident set size now, and its peak so far, in MiB (/proc: VmRSS, VmHWM). */
export function rssMiBOf(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const field = (name: string) => Math.round(metricValue(status, new RegExp(`^${name}:\\s+(\\d+) kB`, 'm')) / 1024)
  return { now: field('VmRSS'), peak: field('VmHWM') }
}

export const metricValue = (text: string, pattern: RegExp): number => Number(pattern.exec(text)?.[1] ?? NaN)

/** Spans the collector's ingester stored so far, from its /metrics text. */
export const storedSpans = (metrics: string): number => metricValue(metrics, /^sieve_insert_rows_total\{table="spans"\} (\d+)/m) || 0
