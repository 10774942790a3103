import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..')

/**
 * The real `sieve <command>` (`up` or `dashboard`) as a child process on an ephemeral port and a
 * temporary data directory (or the one given), resolved once it prints where the dashboard is.
 */
export async function startSieve(
  command = 'up',
  dataDir = mkdtempSync(join(tmpdir(), 'sieve-up-')),
  env: Record<string, string> = {},
): Promise<{ url: string; dashboard: string; dataDir: string; output: () => string; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', command], {
    cwd: repo,
    // The embedded default: `npm test` exports KAFKA_BROKERS for the Kafka tests; empty means unset.
    env: { ...process.env, SIEVE_HOST: '127.0.0.1', SIEVE_PORT: '0', SIEVE_DATA_DIR: dataDir, KAFKA_BROKERS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const dashboard = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sieve ${command} did not start within 60 s:\n${output}`)), 60_000)
    const onData = () => {
      const match = /Dashboard:\s+(\S+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    }
    child.stdout!.on('data', onData)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`sieve ${command} exited with ${code}:\n${output}`))
    })
  })
  return {
    url: new URL(dashboard).origin,
    dashboard,
    dataDir,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Runs `sieve <args>` to completion and returns its exit code and output. */
export async function runSieve(args: string[], dataDir: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', ...args], {
    cwd: repo,
    env: { ...process.env, SIEVE_DATA_DIR: dataDir, KAFKA_BROKERS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (d) => (output += d))
  child.stderr.on('data', (d) => (output += d))
  const [code] = (await once(child, 'exit')) as [number | null]
  return { code, output }
}
