import { spawn } from 'node:child_process'

export interface AgentService {
  url: string
  pid: number
  stop(): void
}

/**
 * An agent served over HTTP in a process of its own (a TypeScript module run through tsx), as
 * Sieve's HTTP agent protocol calls it: resolves with its URL once it prints `listening on <url>`.
 */
export function startAgentService(module: string, args: readonly string[], options: { cwd: string; env: Record<string, string> }): Promise<AgentService> {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', module, ...args], {
    cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'inherit'],
  })
  return new Promise((resolve, reject) => {
    let printed = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      printed += chunk.toString()
      const found = /listening on (\S+)/.exec(printed)
      if (found) resolve({ url: found[1]!, pid: child.pid!, stop: () => child.kill('SIGTERM') })
    })
    child.once('exit', (code) => reject(new Error(`${module} exited with ${code} before it listened`)))
  })
}
