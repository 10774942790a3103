/**
 * The migrations as a sharded, replicated ClickHouse cluster runs them (`CLICKHOUSE_CLUSTER`). Each
 * table becomes a replicated local table on every node (`<name>_local`, `ON CLUSTER`, the engine's
 * `Replicated` form under `/clickhouse/tables/{shard}/{database}/{table}` and `{replica}`) and a
 * `Distributed` table under the table's own name, so every statement Sieve runs reads and writes the
 * names it always has. Materialized views run on the local tables, where an insert arrives: a shard's
 * views see only its own rows, which is why every table whose rows must meet (a trace's spans, its
 * rollup, its scores and their latest state) is sharded by a hash of the trace id. `FINAL` and the
 * views' lookups then stay within one shard. migrations/README.md explains the choice per table.
 */

/**
 * How each table's rows are spread over shards. Rows that collapse together (ReplacingMergeTree
 * keys) or that a view joins must share a shard: a trace's by its id, a small state table's by its key.
 * The quality rollups are only ever written by views on the local tables and read summed.
 */
export const SHARDING_KEYS: Readonly<Record<string, string>> = {
  spans: 'cityHash64(trace_id)',
  traces: 'cityHash64(trace_id)',
  scores: 'cityHash64(trace_id)',
  score_latest: 'cityHash64(trace_id)',
  trace_quality: 'cityHash64(trace_id)',
  feedback: 'cityHash64(trace_id)',
  exports: 'cityHash64(trace_id)',
  dead_letters: 'cityHash64(trace_id)',
  span_log_events: 'cityHash64(trace_id)',
  // A trace's queue rows and skips meet its labels (feedback) in the next item's joins.
  review_queue: 'cityHash64(trace_id)',
  review_skips: 'cityHash64(trace_id)',
  quality_5m: 'rand()',
  quality_1h: 'rand()',
  judge_budget: 'cityHash64(utc_day, slice, instance_id)',
  progress: 'cityHash64(stage)',
  insert_intents: 'cityHash64(consumer_group, partition)',
  schema_migrations: 'cityHash64(version)',
  review_rules: 'cityHash64(project_id, rubric_id)',
  calibration_history: 'cityHash64(project_id, scorer_name)',
}

export class ClusterSchemaError extends Error {
  readonly code = 'CLUSTER_SCHEMA'
}

const local = (table: string) => `${table}_local`
const REPLICA_ARGS = `'/clickhouse/tables/{shard}/{database}/{table}', '{replica}'`

/** The `CREATE TABLE` head: name, optional column list or `AS <table>`, then `ENGINE = <engine>[(args)]` starting a line, and the rest. Keywords upper case, as the migrations write them. */
const CREATE_TABLE = /^CREATE TABLE (IF NOT EXISTS )?(\w+)(\s+AS (\w+))?([\s\S]*?\n)ENGINE\s*=\s*(\w+)(\([^)]*\))?([\s\S]*)$/
const CREATE_VIEW = /^CREATE MATERIALIZED VIEW (IF NOT EXISTS )?(\w+) TO (\w+)([\s\S]*)$/
const ALTER_TABLE = /^ALTER TABLE (\w+)([\s\S]*)$/
const DROP = /^DROP (TABLE|VIEW) (IF EXISTS )?(\w+)\s*$/
const BACKFILL = /^INSERT INTO \w+\s+SELECT\b/
/** Column changes must reach the Distributed table too; everything else (indexes, TTL) is the local table's. */
const COLUMN_CHANGE = /^\s*(ADD|DROP|MODIFY|RENAME|COMMENT) COLUMN\b/i

/** Leading `--` comment lines: kept on the first statement a migration statement becomes. */
function splitComments(statement: string): [comments: string, body: string] {
  const lines = statement.split('\n')
  let i = 0
  while (i < lines.length && /^\s*(--.*)?$/.test(lines[i]!)) i++
  return [lines.slice(0, i).join('\n'), lines.slice(i).join('\n')]
}

/** `FROM x` / `JOIN x` of known tables in a view's query → their local tables. */
function localSources(query: string, tables: ReadonlySet<string>): string {
  return query.replace(/\b(FROM|JOIN)(\s+)(\w+)\b/gi, (whole, keyword: string, space: string, name: string) =>
    tables.has(name) ? `${keyword}${space}${local(name)}` : whole,
  )
}

/**
 * One migration statement as the cluster runs it: one or more statements. `tables` are the tables
 * the migrations create so far (a view's sources are rewritten only when they are Sieve's tables).
 */
export function clusterStatements(statement: string, cluster: string, tables: Set<string>): string[] {
  const [comments, body] = splitComments(statement.trim())
  const on = `ON CLUSTER ${cluster}`
  const withComments = (statements: string[]) => (comments ? [`${comments}\n${statements[0]}`, ...statements.slice(1)] : statements)

  const table = CREATE_TABLE.exec(body)
  if (table) {
    const [, ifNotExists = '', name, , like, columns = '', engine, args = '', rest = ''] = table
    const replicated =
      engine!.startsWith('Replicated') || engine === 'Null'
        ? `${engine}${args}`
        : `Replicated${engine}(${REPLICA_ARGS}${args.length > 2 ? `, ${args.slice(1, -1)}` : ''})`
    const source = like ? ` AS ${local(like)}` : ''
    tables.add(name!)
    const created = `CREATE TABLE ${ifNotExists}${local(name!)} ${on}${source}${columns}ENGINE = ${replicated}${rest}`
    // A Null table only passes inserts on to its views; nothing reads it, so it needs no Distributed table.
    if (engine === 'Null') return withComments([created])
    const key = SHARDING_KEYS[name!]
    if (!key) throw new ClusterSchemaError(`table ${name} has no sharding key in cluster-schema.ts (SHARDING_KEYS)`)
    return withComments([
      created,
      `CREATE TABLE ${ifNotExists}${name} ${on} AS ${local(name!)} ENGINE = Distributed(${cluster}, currentDatabase(), ${local(name!)}, ${key})`,
    ])
  }
  const view = CREATE_VIEW.exec(body)
  if (view) {
    const [, ifNotExists = '', name, target, query = ''] = view
    return withComments([
      `CREATE MATERIALIZED VIEW ${ifNotExists}${name} ${on} TO ${tables.has(target!) ? local(target!) : target}${localSources(query, tables)}`,
    ])
  }
  const alter = ALTER_TABLE.exec(body)
  if (alter) {
    const [, name, change = ''] = alter
    if (!tables.has(name!)) throw new ClusterSchemaError(`ALTER TABLE ${name}: not a table the migrations create`)
    const statements = [`ALTER TABLE ${local(name!)} ${on}${change}`]
    if (COLUMN_CHANGE.test(change)) statements.push(`ALTER TABLE ${name} ${on}${change}`)
    return withComments(statements)
  }
  const drop = DROP.exec(body)
  if (drop) {
    const [, kind, ifExists = '', name] = drop
    if (kind === 'VIEW') return withComments([`DROP VIEW ${ifExists}${name} ${on}`])
    tables.delete(name!)
    // SYNC: a replicated table dropped without it keeps its Keeper path for minutes, and a migration
    // that creates it again at once (0007) would find the replica still there.
    return withComments([`DROP TABLE ${ifExists}${name} ${on}`, `DROP TABLE ${ifExists}${local(name!)} ${on} SYNC`])
  }
  // A migration's backfill copies rows the tables held before it; a cluster starts empty, and an
  // INSERT cannot run ON CLUSTER (each shard would copy its own rows).
  if (BACKFILL.test(body)) return []
  throw new ClusterSchemaError(
    `no cluster form for this statement (CREATE TABLE, CREATE MATERIALIZED VIEW, ALTER TABLE, DROP and INSERT ... SELECT have one): ${body.slice(0, 80)}`,
  )
}

/** The table a TTL or engine check concerns on this deployment: the local one on a cluster. */
export const storedTable = (table: string, cluster: string | undefined): string => (cluster ? local(table) : table)

/** `ON CLUSTER <name>` for statements Sieve runs on every node, or nothing on a single server. */
export const onCluster = (cluster: string | undefined): string => (cluster ? ` ON CLUSTER ${cluster}` : '')
