import type { Config } from '@sieve/core'
import { findOwner, type StoreOwner } from './owner.js'
import { localOperations, type StoreOperations } from './operations.js'
import { remoteOperations } from './remote-operations.js'

/** How long the owner has to answer /healthz before the command opens the store itself. */
const PROBE_MS = 2000

/** Whether the owner answers: a process that reused a dead owner's pid does not. */
async function answers(owner: StoreOwner): Promise<boolean> {
  try {
    return (await fetch(`${owner.url}/healthz`, { signal: AbortSignal.timeout(PROBE_MS) })).ok
  } catch {
    return false
  }
}

/**
 * The operations for a CLI command: through the `sieve up` that owns the embedded store when one
 * runs and answers (chDB lets one process open it), else on the store opened here (and chDB says
 * so if another process still holds it). Storage on a ClickHouse server has no owner: every
 * command opens it itself.
 */
export async function openOperations(config: Config): Promise<StoreOperations> {
  const owner = config.clickhouse.kind === 'embedded' ? findOwner(config.dataDir) : undefined
  if (owner && (await answers(owner))) return remoteOperations(owner)
  const where = config.clickhouse.kind === 'embedded' ? `the store in ${config.clickhouse.path}` : `ClickHouse at ${config.clickhouse.url}`
  const file = process.env.SIEVE_CONFIG_FILE ? `config ${process.env.SIEVE_CONFIG_FILE}` : 'no config file'
  return localOperations(config, async () => (await import('@sieve/core')).createStorage(config.clickhouse), `on ${where} (${file})`)
}
