import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Storage } from './storage.js'
import { applyEmbeddedTableSettings } from './table-settings.js'
import { clusterStatements, storedTable } from './cluster-schema.js'
import { quoteIdentifier } from './quote.js'
import type { Config } from '../config.js'

/** The numbered SQL files at the repository root, shared by the embedded engine and a server. */
export const MIGRATIONS_DIR = fileURLToPath(new URL('../../../migrations/', import.meta.url))

export interface Migration {
  version: string
  name: string
  statements: string[]
}

export interface MigrateOptions {
  retentionDays: number
  /** A ClickHouse cluster's name (`CLICKHOUSE_CLUSTER`): every statement runs `ON CLUSTER` it, see cluster-schema.ts. */
  cluster?: string
  dir?: string
}

/** What `migrate` takes from the configuration. */
export function migrateOptionsOf(config: Pick<Config, 'retentionDays' | 'clickhouse'>): MigrateOptions {
  const cluster = config.clickhouse.kind === 'server' ? config.clickhouse.cluster : undefined
  return { retentionDays: config.retentionDays, ...(cluster ? { cluster } : {}) }
}

const SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations
(version String, name String, applied_at DateTime64(3, 'UTC') DEFAULT now64(3))
ENGINE = ReplacingMergeTree ORDER BY version`

/**
 * Every statement `migrate` would run on an empty database, in order, `{retention_days}` filled in:
 * what `sieve migrate --print` shows, for one server or, given `cluster`, for a cluster.
 */
export function schemaStatements(options: MigrateOptions): { migration: string; statements: string[] }[] {
  const tables = new Set<string>()
  const form = (statement: string) => (options.cluster ? clusterStatements(statement, options.cluster, tables) : [statement])
  const days = String(options.retentionDays)
  return [
    { migration: 'schema_migrations', statements: form(SCHEMA_MIGRATIONS) },
    ...loadMigrations(options.dir).map((m) => ({
      migration: `${m.version}_${m.name}`,
      statements: m.statements.flatMap((s) => form(s.replaceAll('{retention_days}', days))),
    })),
  ]
}

export interface MigrateResult {
  applied: string[]
  /** Tables whose TTL was changed to the configured retention. */
  retentionUpdated: string[]
}

export class MigrationError extends Error {
  readonly code = 'MIGRATION_FAILED'
}

const FILE = /^(\d+)_([\w-]+)\.sql$/

/** Splits a file into statements at `;` ending a line; comments stay with their statement. */
function statementsOf(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.replace(/--.*$/gm, '').trim() !== '')
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .filter((f) => FILE.test(f))
    .sort()
    .map((f) => {
      const [, version = '', name = ''] = FILE.exec(f) ?? []
      return { version, name, statements: statementsOf(readFileSync(`${dir}/${f}`, 'utf8')) }
    })
}

/**
 * `CREATE TABLE ... TTL <expr> + INTERVAL {retention_days} DAY` → table and TTL expression. A table
 * a later migration re-creates takes the later definition.
 */
function retentionTtls(migrations: Migration[]): { table: string; expression: string }[] {
  const found = new Map<string, string>()
  for (const statement of migrations.flatMap((m) => m.statements)) {
    const table = /CREATE TABLE (?:IF NOT EXISTS )?(\w+)/i.exec(statement)?.[1]
    const ttl = /\bTTL\s+(.+?\{retention_days\}\s*DAY)/is.exec(statement)?.[1]
    if (table && ttl) found.set(table, ttl)
  }
  return [...found].map(([table, expression]) => ({ table, expression }))
}

async function rows<T>(client: Storage, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const result = await client.query({ query, query_params: params, format: 'JSONEachRow' })
  return result.json<T>()
}

/**
 * Brings the schema up to date: applies, in order, every migration not yet recorded in
 * `schema_migrations`, then makes each table's TTL match the configured retention and, on the
 * embedded engine, its table settings (SIEVE_FSYNC, merge selection) what they should be. Safe to
 * run any number of times and from every start-up.
 */
export async function migrate(client: Storage, options: MigrateOptions): Promise<MigrateResult> {
  const days = options.retentionDays
  if (!Number.isInteger(days) || days <= 0) throw new MigrationError(`retention must be a positive number of days (got ${days})`)
  const migrations = loadMigrations(options.dir)
  if (options.cluster) {
    // Opening storage created the database on the node it reached; every node needs it before ON CLUSTER tables.
    const database = (await rows<{ name: string }>(client, 'SELECT currentDatabase() AS name'))[0]!.name
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)} ON CLUSTER ${options.cluster}` })
  }
  const [schema, ...pending] = schemaStatements(options)
  for (const statement of schema!.statements) await client.command({ query: statement })
  const done = new Set((await rows<{ version: string }>(client, 'SELECT version FROM schema_migrations FINAL')).map((r) => r.version))
  const applied: string[] = []
  for (const [i, migration] of migrations.entries()) {
    if (done.has(migration.version)) continue
    for (const statement of pending[i]!.statements) {
      try {
        await client.command({ query: statement })
      } catch (err) {
        throw new MigrationError(`migration ${migration.version}_${migration.name} failed: ${(err as Error).message}`)
      }
    }
    await client.insert({ table: 'schema_migrations', values: [{ version: migration.version, name: migration.name }], format: 'JSONEachRow' })
    applied.push(`${migration.version}_${migration.name}`)
  }

  const retentionUpdated: string[] = []
  const engines = new Map(
    (await rows<{ name: string; engine_full: string }>(client, 'SELECT name, engine_full FROM system.tables WHERE database = currentDatabase()')).map((t) => [
      t.name,
      t.engine_full,
    ]),
  )
  for (const { table, expression } of retentionTtls(migrations)) {
    const engine = engines.get(storedTable(table, options.cluster))
    if (engine === undefined || engine.includes(`toIntervalDay(${days})`)) continue
    const alter = `ALTER TABLE ${table} MODIFY TTL ${expression.replaceAll('{retention_days}', String(days))}`
    const [statement] = options.cluster ? clusterStatements(alter, options.cluster, new Set([table])) : [alter]
    await client.command({ query: statement! })
    retentionUpdated.push(table)
  }
  // Tables just created start with the engine's defaults; the embedded engine's settings apply to them too.
  await applyEmbeddedTableSettings(client)
  return { applied, retentionUpdated }
}

/** True when every migration file is recorded as applied (for readiness checks). */
export async function migrationsApplied(client: Storage, dir = MIGRATIONS_DIR): Promise<boolean> {
  try {
    const done = new Set((await rows<{ version: string }>(client, 'SELECT version FROM schema_migrations FINAL')).map((r) => r.version))
    return loadMigrations(dir).every((m) => done.has(m.version))
  } catch {
    return false
  }
}
