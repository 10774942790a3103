import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { until } from './until.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))

/** A `sieve <command>` child process and everything it has printed so far (stdout and stderr). */
export interface SieveProcess {
  child: ChildProcess
  output: () => string
}

/**
 * The real CLI in a child process, as production runs it: `sieve <command>` from the repository's
 * sources, on ephemeral ports, with no API keys unless `env` sets them (`env` also names the data
 * directory, `SIEVE_DATA_DIR`, and the Kafka settings).
 */
export function spawnSieve(command: string, env: Record<string, string>): SieveProcess {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', command], {
    cwd: repo,
    env: { ...process.env, SIEVE_PORT: '0', SIEVE_API_KEYS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => (output += chunk))
  child.stderr!.on('data', (chunk) => (output += chunk))
  return { child, output: () => output }
}

/**
 * Waits until a `sieve <role>` process says it is up and returns the metrics URL it printed; fails
 * with its output when it exits first.
 */
export async function roleMetricsUrl(run: SieveProcess, role: string): Promise<string> {
  await printed(run, new RegExp(`Sieve ${role} is up`), `the ${role} banner`)
  return /Metrics:\s+(\S+)/.exec(run.output())![1]!
}

/**
 * Waits until a `sieve` process has printed what `pattern` matches (`/Query API:\s+(http\S+)/`) and
 * returns its first group (or the whole match); fails with its output when it exits first.
 */
export async function printed(run: SieveProcess, pattern: RegExp, what = String(pattern)): Promise<string> {
  let match: RegExpExecArray | null = null
  await until(what, () => {
    match = pattern.exec(run.output())
    if (!match && run.child.exitCode !== null) throw new Error(`the process exited ${run.child.exitCode} before printing ${what}:\n${run.output()}`)
    return match !== null
  })
  return match![1] ?? match![0]
}
