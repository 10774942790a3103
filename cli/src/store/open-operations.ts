import type { Config } from '@sieve/core'
import { findOwner, type StoreOwner } from './owner.js'
import { UsageError } from '../command.js'
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
 * The operations for a CLI command: through the Sieve SIEVE_URL names (another machine's), else
 * through the `sieve up` that owns the embedded store when one
 * runs and answers (chDB lets one process open it), else on the store opened here (and chDB says
 * so if another process still holds it). Storage on a ClickHouse server has no owner: every
 * command opens it itself.
 */
export async function openOperations(config: Config): Promise<StoreOperations> {
  if (config.url) {
    // Asked for by name: that Sieve or nothing, never a store of this machine instead.
    if (!config.opsToken) throw new UsageError(`SIEVE_URL=${config.url} needs SIEVE_OPS_TOKEN, the token that Sieve was started with`)
    return remoteOperations(
      { url: config.url, token: config.opsToken, name: `the Sieve at SIEVE_URL` },
      `through the Sieve at ${config.url} (SIEVE_URL), with its store and configuration`,
    )
  }
  const owner = config.clickhouse.kind === 'embedded' ? findOwner(config.dataDir) : undefined
  if (owner && (await answers(owner))) {
    const file = owner.configFile ? `config ${owner.configFile}` : 'no config file'
    return remoteOperations(
      { url: owner.url, token: owner.token, name: `the running Sieve (pid ${owner.pid}) owns the store but` },
      `through the running Sieve (pid ${owner.pid}, ${owner.url}, ${file}): it owns the store`,
    )
  }
  const where = config.clickhouse.kind === 'embedded' ? `the store in ${config.clickhouse.path}` : `ClickHouse at ${config.clickhouse.url}`
  const file = process.env.SIEVE_CONFIG_FILE ? `config ${process.env.SIEVE_CONFIG_FILE}` : 'no config file'
  return localOperations(config, async () => (await import('@sieve/core')).createStorage(config.clickhouse), `on ${where} (${file})`)
}
