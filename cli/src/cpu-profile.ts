import { mkdirSync, writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { join } from 'node:path'
import type { Logger } from '@sieve/core'

/**
 * A CPU profile of a running role on demand: the first SIGUSR2 starts V8's sampling profiler on
 * the main thread, the next writes what it sampled to `<dir>/sieve-<pid>-<time>.cpuprofile`
 * (Chrome DevTools and `npm run bench:pipeline` read it) and stops. Costs nothing until asked.
 */
export function profileOnSignal(dir: string, log: Logger): () => void {
  let session: Session | undefined
  const toggle = async () => {
    if (!session) {
      session = new Session()
      session.connect()
      await session.post('Profiler.enable')
      await session.post('Profiler.start')
      log.info('cpu profile started (SIGUSR2 again writes it)')
      return
    }
    const { profile } = await session.post('Profiler.stop')
    session.disconnect()
    session = undefined
    mkdirSync(dir, { recursive: true })
    const file = join(dir, `sieve-${process.pid}-${Date.now()}.cpuprofile`)
    writeFileSync(file, JSON.stringify(profile))
    log.info(`cpu profile written to ${file}`, { file })
  }
  const onSignal = () => void toggle().catch((err: Error) => log.error(`cpu profile failed: ${err.message}`))
  process.on('SIGUSR2', onSignal)
  return () => process.off('SIGUSR2', onSignal)
}
