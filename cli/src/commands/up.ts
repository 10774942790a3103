import { createStorage, loadConfig, migrate, type Config } from '@sieve/core'
import { InProcessQueue, createMetrics } from '@sieve/collector'
import { once } from 'node:events'
import type { Command } from '../command.js'
import { parts, type RunningPart } from '../parts.js'

const DRAIN_TIMEOUT_MS = 30_000
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/

/** Refuses an open port without keys; returns the warning to print when running keyless on loopback. */
export function bindingProblem(config: Config): { refuse?: string; warn?: string } {
  if (config.apiKeys.size > 0) return {}
  if (!LOOPBACK.test(config.host)) {
    return {
      refuse: `SIEVE_HOST=${config.host} is reachable from other machines, but no API keys are configured. ` +
        'Set SIEVE_API_KEYS (e.g. SIEVE_API_KEYS=mykey:myproject) or listen on 127.0.0.1.',
    }
  }
  return { warn: 'No SIEVE_API_KEYS set: listening on loopback only; all traffic goes to project `default`.' }
}

export const upCommand: Command = {
  name: 'up',
  summary: 'Run Sieve: collector, queue, ingester and storage, from the environment configuration',
  usage: 'sieve up',
  options: {},
  async run() {
    const config = loadConfig()
    const binding = bindingProblem(config)
    if (binding.refuse) {
      console.error(`sieve up: ${binding.refuse}`)
      return 2
    }
    if (binding.warn) console.warn(`sieve up: ${binding.warn}`)

    const storage = await createStorage(config.clickhouse)
    const running: RunningPart[] = []
    const queue = new InProcessQueue({
      onError: (group, error, attempt) => console.error(`sieve up: ${group} failed to handle a batch (attempt ${attempt}): ${(error as Error).message}`),
    })
    const stop = async (): Promise<void> => {
      for (const part of running.reverse()) await part.stop()
      await queue.close()
      await storage.close()
    }
    try {
      const migrated = await migrate(storage, { retentionDays: config.retentionDays })
      if (migrated.applied.length) console.log(`sieve up: applied migrations ${migrated.applied.join(', ')}`)
      const metrics = createMetrics()
      for (const part of parts) running.push(await part({ config, storage, queue, metrics }))
    } catch (err) {
      await stop().catch(() => {})
      throw err
    }

    const where = config.clickhouse.kind === 'embedded' ? `embedded ClickHouse in ${config.clickhouse.path}` : config.clickhouse.url
    console.log(['Sieve is up.', ...running.flatMap((p) => p.banner ?? []), `Storage:          ${where}`].join('\n'))

    const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')])
    console.log(`sieve up: ${String(signal[0] ?? 'signal')} received, draining and stopping`)
    // Storage may be down for good; do not hang forever on spans that cannot be written.
    const timeout = setTimeout(() => {
      console.error(`sieve up: gave up after ${DRAIN_TIMEOUT_MS / 1000}s with ${queue.depth()} spans not stored`)
      process.exit(1)
    }, DRAIN_TIMEOUT_MS)
    await stop()
    clearTimeout(timeout)
    console.log('sieve up: stopped')
    return 0
  },
}
