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
  await until(`the ${role} banner`, () => {
    if (run.child.exitCode !== null) throw new Error(`sieve ${role} exited ${run.child.exitCode}:\n${run.output()}`)
    return run.output().includes(`Sieve ${role} is up`)
  })
  return /Metrics:\s+(\S+)/.exec(run.output())![1]!
}
