import { OWNER_NOTE, REMOTE_ENV, STORAGE_ENV } from '../environment.js'
import { URL_OPTION, withUrl, type Command } from '../command.js'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending ClickHouse migrations and the configured retention, then exit',
  options: { url: URL_OPTION },
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_RETENTION_DAYS', ...REMOTE_ENV],
  exitCodes: { 0: 'schema up to date (applied what was pending)', 1: 'storage unreachable, or a migration failed', 2: 'usage or configuration error' },
  details: [OWNER_NOTE],
  async run({ values }) {
    const [{ loadConfig }, { openOperations }] = await Promise.all([import('@sieve/core'), import('../store/open-operations.js')])
    const operations = await openOperations(loadConfig(withUrl(values)))
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
