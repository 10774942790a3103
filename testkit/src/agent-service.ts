import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { prerequisite } from './prerequisite.js'

export interface AgentService {
  url: string
  pid: number
  stop(): void
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The Python that runs the agents in testkit/agents/python (a venv .ci/run fills from their
 * requirements.txt; SIEVE_TEST_PYTHON to use another), and why a test skips where it is absent (fails under CI).
 */
export function pythonAgents(): { python: string; skip: string | false } {
  const python = process.env.SIEVE_TEST_PYTHON ?? `${ROOT}.cache/python/bin/python`
  const skip = prerequisite(
    existsSync(python)
      ? false
      : `no Python instrumentations at ${python} (python3 -m venv .cache/python && .cache/python/bin/pip install -r testkit/agents/python/requirements.txt && .cache/python/bin/pip install --no-deps -r testkit/agents/python/requirements-nodeps.txt)`,
  )
  return { python, skip }
}

/** The command line that runs a TypeScript module with node, as the workspace's sources are run. */
export const tsxCommand = (module: string, ...args: string[]): string[] => [process.execPath, '--conditions=sieve-source', '--import', 'tsx', module, ...args]

/**
 * An agent served over HTTP in a process of its own, as Sieve's HTTP agent protocol calls it:
 * resolves with its URL once it prints `listening on <url>`.
 */
export function startAgentService(command: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<AgentService> {
  const [program, ...args] = command
  const child = spawn(program!, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let printed = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString()
      const found = /listening on (\S+)/.exec(printed)
      if (found) resolve({ url: found[1]!, pid: child.pid!, stop: () => child.kill('SIGTERM') })
    })
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`${command.join(' ')} exited with ${code} before it listened`)))
  })
}
