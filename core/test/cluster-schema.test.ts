import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { createStorage, loadMigrations, migrate, schemaStatements } from '../src/index.js'
import { clusterStatements, SHARDING_KEYS } from '../src/storage/cluster-schema.js'

/*
 * The cluster form of the migrations (CLICKHOUSE_CLUSTER) cannot run here: no ClickHouse cluster can
 * be installed on these machines, and chDB has no `remote_servers`. So the engine checks what it can:
 * every statement parses, and the cluster's local tables and views, applied on one node (ON CLUSTER
 * dropped, Replicated engines as their plain form, each Distributed table as a Merge table over its
 * local one), have the single server's columns and carry scores through the views as it does.
 */
const CLUSTER = 'sieve_cluster'
const dir = mkdtempSync(join(tmpdir(), 'sieve-cluster-schema-'))
let client: Storage
before(async () => {
  client = await createStorage({ kind: 'embedded', path: dir, database: 'single' })
  await migrate(client, { retentionDays: 30 })
})
after(async () => {
  await client.close()
  rmSync(dir, { recursive: true, force: true })
})

const clusterSchema = () => schemaStatements({ retentionDays: 30, cluster: CLUSTER }).flatMap((m) => m.statements)

/** A cluster statement as one node without a cluster runs it. */
function onOneNode(statement: string): string {
  return statement
    .replaceAll(` ON CLUSTER ${CLUSTER}`, '')
    .replace(/ENGINE = Replicated(\w+)\('\/clickhouse\/tables\/\{shard\}\/\{database\}\/\{table\}', '\{replica\}'(?:, )?/, 'ENGINE = $1(')
    .replace(/ENGINE = Distributed\(\w+, currentDatabase\(\), (\w+), .*\)$/, "ENGINE = Merge(currentDatabase(), '^$1$$')")
}

const columnsOf = async (database: string) =>
  await (
    await client.query({
      query: `SELECT table, groupArray((name, type)) AS columns FROM (SELECT table, name, type FROM system.columns WHERE database = {database:String} ORDER BY table, position) GROUP BY table ORDER BY table`,
      query_params: { database },
      format: 'JSONEachRow',
    })
  ).json<{ table: string; columns: [string, string][] }>()

test('every statement of the cluster schema parses, and every table is a replicated local table plus a Distributed one over it', async () => {
  const statements = clusterSchema()
  for (const statement of statements) {
    await assert.doesNotReject(client.query({ query: 'SELECT formatQuery({q:String})', query_params: { q: statement } }), statement.slice(0, 200))
  }
  const created = statements.filter((s) => /^(--.*\n)*CREATE TABLE/.test(s)).map((s) => /CREATE TABLE IF NOT EXISTS (\w+)/.exec(s)![1]!)
  for (const table of Object.keys(SHARDING_KEYS)) {
    assert.ok(created.includes(`${table}_local`) && created.includes(table), `${table}: a local and a Distributed table`)
  }
  for (const statement of statements.filter((s) => s.includes('ENGINE = Distributed'))) {
    assert.match(
      statement,
      /CREATE TABLE IF NOT EXISTS (\w+) ON CLUSTER sieve_cluster AS \1_local ENGINE = Distributed\(sieve_cluster, currentDatabase\(\), \1_local, /,
    )
  }
  for (const view of statements.filter((s) => s.includes('MATERIALIZED VIEW'))) {
    // Table names, not functions (`ARRAY JOIN if(...)`) or subqueries.
    const reads = [...view.matchAll(/\b(?:FROM|JOIN|TO)\s+(\w+)\b(?!\s*\()/g)].map((m) => m[1]!)
    assert.ok(reads.length > 0 && reads.every((t) => t.endsWith('_local')), `a view reads and writes local tables only: ${reads.join(', ')}`)
  }
})

test("on one node the cluster schema has the single server's columns, and a score goes through the views as there", async () => {
  await client.command({ query: 'CREATE DATABASE IF NOT EXISTS clustered' })
  await client.command({ query: 'USE clustered' })
  try {
    for (const statement of clusterSchema()) await client.command({ query: onOneNode(statement) })
    const single = new Map((await columnsOf('single')).map((t) => [t.table, t.columns]))
    const clustered = new Map((await columnsOf('clustered')).map((t) => [t.table, t.columns]))
    for (const [table, columns] of single) {
      if (table.endsWith('_mv')) continue
      const name = table === 'score_changes' ? 'score_changes_local' : table
      assert.deepEqual(clustered.get(name), columns, `${table}: same columns on the cluster`)
      if (table !== 'score_changes') assert.deepEqual(clustered.get(`${table}_local`), columns, `${table}_local`)
    }

    const score = {
      project_id: 'p',
      trace_id: 'a'.repeat(32),
      span_id: '',
      kind: 'check',
      scorer_name: 'tool_error',
      scorer_version: '1',
      trace_start_time: '2026-12-01 10:00:00.000',
      passed: 0,
      value: 0,
      created_at: '2026-12-01 10:00:01.000',
    }
    await client.insert({ table: 'scores_local', values: [score], format: 'JSONEachRow' })
    const count = async (table: string) =>
      Number((await (await client.query({ query: `SELECT count() AS n FROM ${table}`, format: 'JSONEachRow' })).json<{ n: string }>())[0]!.n)
    assert.equal(await count('score_latest_local'), 1)
    assert.equal(await count('quality_5m_local'), 1)
    assert.equal(await count('trace_quality_local'), 1)
  } finally {
    await client.command({ query: 'USE single' })
  }
})

test('a statement with no cluster form, or a table without a sharding key, is refused by name', () => {
  assert.throws(
    () => clusterStatements('CREATE TABLE IF NOT EXISTS mystery\n(x UInt8)\nENGINE = MergeTree\nORDER BY x', CLUSTER, new Set()),
    /mystery has no sharding key/,
  )
  assert.throws(() => clusterStatements('OPTIMIZE TABLE spans FINAL', CLUSTER, new Set(['spans'])), /no cluster form/)
  assert.equal(loadMigrations().length > 10, true)
})
