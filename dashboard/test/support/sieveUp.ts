import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const repo = join(dirname(fileURLToPath(import.meta.url)), '../../..')

/** The real `sieve up` as a child process on an ephemeral port and a temporary data directory. */
export async function startSieveUp(env: Record<string, string> = {}): Promise<{ url: string; dashboard: string; output: () => string; stop(): Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sieve-up-'))
  const child: ChildProcess = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', 'up'], {
    cwd: repo,
    env: { ...process.env, SIEVE_HOST: '127.0.0.1', SIEVE_PORT: '0', SIEVE_DATA_DIR: dataDir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const dashboard = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`sieve up did not start within 60 s:\n${output}`)), 60_000)
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
      reject(new Error(`sieve up exited with ${code}:\n${output}`))
    })
  })
  return {
    url: new URL(dashboard).origin,
    dashboard,
    output: () => output,
    async stop() {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}
