import type { Config } from '@sieve/core'
import { findOwner } from './owner.js'
import { localOperations, type StoreOperations } from './operations.js'
import { remoteOperations } from './remote-operations.js'

/**
 * The operations for a CLI command: through the `sieve up` that owns the embedded store when one
 * runs (chDB lets one process open it), else on the store opened here. Storage on a ClickHouse
 * server has no owner: every command opens it itself.
 */
export function openOperations(config: Config): StoreOperations {
  const owner = config.clickhouse.kind === 'embedded' ? findOwner(config.dataDir) : undefined
  if (owner) return remoteOperations(owner)
  const where = config.clickhouse.kind === 'embedded' ? `the store in ${config.clickhouse.path}` : `ClickHouse at ${config.clickhouse.url}`
  const file = process.env.SIEVE_CONFIG_FILE ? `config ${process.env.SIEVE_CONFIG_FILE}` : 'no config file'
  return localOperations(config, async () => (await import('@sieve/core')).createStorage(config.clickhouse), `on ${where} (${file})`)
}
