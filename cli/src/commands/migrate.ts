import { OWNER_NOTE, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending ClickHouse migrations and the configured retention, then exit',
  options: {},
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_RETENTION_DAYS'],
  exitCodes: { 0: 'schema up to date (applied what was pending)', 1: 'storage unreachable, or a migration failed', 2: 'usage or configuration error' },
  details: [OWNER_NOTE],
  async run() {
    const [{ loadConfig }, { openOperations }] = await Promise.all([import('@sieve/core'), import('../store/open-operations.js')])
    const operations = await openOperations(loadConfig())
    try {
      const result = await operations.migrate()
      console.error(`sieve migrate: ${operations.origin}`)
      console.log(result.applied.length ? `applied: ${result.applied.join(', ')}` : 'schema up to date')
      if (result.retentionUpdated.length) console.log(`retention set to ${result.retentionDays} days on: ${result.retentionUpdated.join(', ')}`)
      return 0
    } catch (err) {
      console.error(`sieve migrate: ${(err as Error).message}`)
      return 1
    } finally {
      await operations.close()
    }
  },
}
