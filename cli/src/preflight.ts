import { createServer } from 'node:net'
import { checkEmbeddedEngine, type Config } from '@sieve/core'

/** The error codes of a problem with what the person starting Sieve gave it (settings, sections, rubrics, what is installed). */
const SETUP_PROBLEMS = ['CONFIG_INVALID', 'RUBRIC_INVALID', 'STORAGE_UNAVAILABLE', 'START_UP']

/** Something on this machine stands in the way of starting (a port taken, a data directory in use). */
export class StartUpError extends Error {
  readonly code = 'START_UP'
}

/**
 * Listens on host:port and closes at once: whether a part's server can listen there, said before
 * storage is opened (so a taken port leaves no data directory behind). Port 0 asks for any port.
 */
export async function checkPort(host: string, port: number): Promise<void> {
  if (port === 0) return
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) => {
      const why = err.code === 'EADDRINUSE' ? 'is taken by another process (another `sieve up`?)' : `cannot be listened on (${err.code ?? err.message})`
      reject(new StartUpError(`SIEVE_PORT=${port} on SIEVE_HOST=${host} ${why}: stop that process or set SIEVE_PORT to a free port`))
    })
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()))
  })
}

/**
 * What a role checks before anything is opened or written: its parts' own checks (their config
 * sections, the port they listen on) and, for the embedded store, that its engine is installed.
 * Returns the problem to print (the command exits 2), or undefined; any other error is a bug and
 * is thrown.
 */
export async function preflight(checks: readonly (((config: Config) => Promise<void>) | undefined)[], config: Config): Promise<string | undefined> {
  try {
    if (config.clickhouse.kind === 'embedded') await checkEmbeddedEngine()
    for (const check of checks) await check?.(config)
    return undefined
  } catch (err) {
    if (!SETUP_PROBLEMS.includes((err as { code?: string }).code ?? '')) throw err
    return (err as Error).message
  }
}
