import { once } from 'node:events'
import { join } from 'node:path'
import type { Storage } from '@sieve/core'
import { createLogger, createStorage, engineMemoryBytes, loadConfig, migrate, migrateOptionsOf, type Config, type SpanQueue } from '@sieve/core'
import { createPipelineMetrics, registerEngineMemoryGauge } from '@sieve/metrics'
import { InProcessQueue } from '@sieve/queue'
import { profileOnSignal } from './cpu-profile.js'
import { openQueue } from './queue.js'
import { preflight, StartUpError } from './preflight.js'
import type { Part, RunningPart } from './parts.js'
import { findOwner, newOwnerToken, removeOwner, writeOwner } from './store/owner.js'
import { versionText } from './version.js'

const DRAIN_TIMEOUT_MS = 30_000
/** Once the stop is given up: how long statements still running in storage may take to end before the exit. */
const CLOSE_TIMEOUT_MS = 30_000
const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|::1|\[::1\])$/

/** Refuses an open port without keys; returns the warning to print when running keyless on loopback. */
export function bindingProblem(config: Config): { refuse?: string; warn?: string } {
  if (config.apiKeys.size > 0) return {}
  if (!LOOPBACK.test(config.host)) {
    return {
      refuse:
        `SIEVE_HOST=${config.host} is reachable from other machines, but no API keys are configured. ` +
        'Set SIEVE_API_KEYS (e.g. SIEVE_API_KEYS=mykey:myproject) or listen on 127.0.0.1.',
    }
  }
  return { warn: 'No SIEVE_API_KEYS set: listening on loopback only; all traffic goes to project `default`.' }
}

/** chDB lets one process open a data directory: another `sieve up` holding it is said before anything is opened. */
async function storeFree(config: Config): Promise<void> {
  const owner = findOwner(config.dataDir)
  if (owner) {
    throw new StartUpError(
      `another \`sieve up\` (pid ${owner.pid}, ${owner.url}) is running with SIEVE_DATA_DIR=${config.dataDir}: stop it, or give this one another SIEVE_DATA_DIR`,
    )
  }
}

export interface Role {
  /** The command name, for messages. */
  name: string
  parts: Part[]
  /** Apply migrations at start (`sieve up`); production roles leave that to `sieve migrate`. */
  migrate: boolean
  /** Roles that only make sense with Kafka between them (`collector`, `ingester`). */
  needsKafka: boolean
}

/**
 * Runs a role until SIGINT/SIGTERM: storage, queue (Kafka or in-process, see queue.ts) and the
 * role's parts; on a signal the parts stop in reverse order so accepted spans drain first.
 */
export async function serve(role: Role): Promise<number> {
  const config = loadConfig()
  const name = `sieve ${role.name}`
  if (role.needsKafka && !config.kafka) {
    console.error(`${name}: set KAFKA_BROKERS (e.g. KAFKA_BROKERS=kafka:9092); without Kafka run \`sieve up\`, which holds every part in one process.`)
    return 2
  }
  // Everything the person starting it can get wrong is found before storage is opened: a data
  // directory is never created (nor a schema migrated) for a start that cannot succeed. What is
  // missing comes first (an image without the embedded engine), then how it would listen.
  const ownsStore = role.name === 'up' && config.clickhouse.kind === 'embedded'
  const problem = await preflight([...(ownsStore ? [storeFree] : []), ...role.parts.map((p) => p.check)], config)
  if (problem) {
    console.error(`${name}: ${problem}`)
    return 2
  }
  const binding = bindingProblem(config)
  if (binding.refuse) {
    console.error(`${name}: ${binding.refuse}`)
    return 2
  }
  // Refusals above are for the person starting it; from here on, events for whoever reads the logs.
  const log = createLogger({ level: config.logLevel, fields: { role: role.name } })
  if (binding.warn) log.warn(`${name}: ${binding.warn}`)

  let storage: Storage
  try {
    storage = await createStorage(config.clickhouse)
  } catch (err) {
    log.error(`${name}: ${(err as Error).message}`)
    return 1
  }
  const running: RunningPart[] = []
  let queue: SpanQueue | undefined
  // Only `sieve up` on an embedded store owns it: chDB lets one process open the directory.
  const ownerToken = ownsStore ? newOwnerToken() : undefined
  const stop = async (): Promise<void> => {
    if (ownerToken) removeOwner(config.dataDir, ownerToken)
    for (const part of running.reverse()) await part.stop()
    await queue?.close()
    await storage.close()
  }
  try {
    if (role.migrate) {
      const migrated = await migrate(storage, migrateOptionsOf(config))
      if (migrated.applied.length) log.info(`${name}: applied migrations ${migrated.applied.join(', ')}`, { migrations: migrated.applied })
    }
    const metrics = createPipelineMetrics()
    if (config.clickhouse.kind === 'embedded') registerEngineMemoryGauge(metrics.registry, () => engineMemoryBytes(storage))
    queue = await openQueue(config, metrics, role.name, log, storage)
    const queueHeld = queue instanceof InProcessQueue ? queue : undefined
    for (const part of role.parts) running.push(await part({ config, storage, queue, queueHeld, metrics, log, ...(ownerToken ? { ownerToken } : {}) }))
    const url = running.find((p) => p.url)?.url
    if (ownerToken && url) {
      writeOwner(config.dataDir, {
        pid: process.pid,
        url,
        token: ownerToken,
        startedAt: new Date().toISOString(),
        version: versionText(),
        configFile: process.env.SIEVE_CONFIG_FILE ?? '',
      })
    }
  } catch (err) {
    await stop().catch(() => {})
    log.error(`${name}: ${(err as Error).message}`)
    return 1
  }

  const where = config.clickhouse.kind === 'embedded' ? `embedded ClickHouse in ${config.clickhouse.path}` : config.clickhouse.url
  const via = config.kafka ? `Kafka ${config.kafka.brokers.join(',')} (topic ${config.kafka.spansTopic})` : 'in-process'
  console.log(
    [
      role.name === 'up' ? 'Sieve is up.' : `Sieve ${role.name} is up.`,
      ...running.flatMap((p) => p.banner ?? []),
      `Queue:            ${via}`,
      `Storage:          ${where}`,
    ].join('\n'),
  )

  const stopProfiling = profileOnSignal(join(config.dataDir, 'profiles'), log)
  const signal = await Promise.race([once(process, 'SIGINT'), once(process, 'SIGTERM')])
  stopProfiling()
  log.info(`${name}: ${String(signal[0] ?? 'signal')} received, draining and stopping`)
  // Storage may be down for good, or the backlog too large to finish: do not hang forever. Exit 1
  // saying what was left, but only once storage is closed: a process that exits while a statement
  // runs inside the embedded engine crashes in libchdb instead. Closing refuses new statements
  // and resolves once those running have ended (see createStorage); what the parts still held is
  // in storage or was never acknowledged, and the next start recovers the former.
  const giveUp = async () => {
    const left = [queue instanceof InProcessQueue ? `${queue.depth()} spans not stored` : '', ...running.map((p) => p.unfinished?.() ?? '')].filter(
      (what) => what !== '',
    )
    log.error(`${name}: gave up after ${DRAIN_TIMEOUT_MS / 1000}s${left.length ? ` with ${left.join(' and ')}` : ''}`)
    if (ownerToken) removeOwner(config.dataDir, ownerToken)
    const closed = await Promise.race([
      storage.close().then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => setTimeout(resolve, CLOSE_TIMEOUT_MS, false)),
    ])
    if (!closed) log.error(`${name}: storage still busy ${CLOSE_TIMEOUT_MS / 1000}s later; exiting all the same`)
    process.exit(1)
  }
  const timeout = setTimeout(() => void giveUp(), DRAIN_TIMEOUT_MS)
  await stop()
  clearTimeout(timeout)
  log.info(`${name}: stopped`)
  return 0
}
