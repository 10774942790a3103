import { OWNER_NOTE, REMOTE_ENV, STORAGE_ENV } from '../environment.js'
import { URL_OPTION, withUrl, type Command } from '../command.js'

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'Apply pending ClickHouse migrations and the configured retention, then exit',
  options: {
    url: URL_OPTION,
    print: { type: 'boolean', description: 'print the statements migrating an empty database would run, connecting to nothing, and exit' },
    cluster: {
      type: 'string',
      value: 'name',
      env: 'CLICKHOUSE_CLUSTER',
      description: 'with --print: the statements for that ClickHouse cluster (ON CLUSTER, replicated local tables, Distributed tables)',
    },
  },
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_RETENTION_DAYS', ...REMOTE_ENV],
  exitCodes: { 0: 'schema up to date (applied what was pending)', 1: 'storage unreachable, or a migration failed', 2: 'usage or configuration error' },
  details: [
    OWNER_NOTE,
    'With CLICKHOUSE_CLUSTER each table is a replicated local table on every node and a Distributed one sharded by trace id (migrations/README.md, "Cluster"); `--print --cluster NAME` shows the statements.',
  ],
  async run({ values }) {
    const [{ loadConfig, migrateOptionsOf, schemaStatements }, { openOperations }] = await Promise.all([
      import('@sieve/core'),
      import('../store/open-operations.js'),
    ])
    if (values.print) {
      const config = loadConfig(withUrl(values))
      const cluster = typeof values.cluster === 'string' ? values.cluster : undefined
      for (const { migration, statements } of schemaStatements({ ...migrateOptionsOf(config), ...(cluster ? { cluster } : {}) })) {
        console.log(`-- ${migration}\n${statements.map((s) => `${s};\n`).join('\n')}`)
      }
      return 0
    }
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
