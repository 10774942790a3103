import { ClickHouseError, ClickHouseLogLevel, createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client'
import type { ChdbConnection } from 'chdb/connection'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Config } from '../config.js'
import { jsonLinesBuffer } from './insert-compact-rows.js'
import { quoteIdentifier } from './quote.js'
import { ClientStorage, type Storage } from './storage.js'
import { engineStatement, lowerEngineThreads } from './engine-threads.js'
import { applyEmbeddedTableSettings } from './table-settings.js'

export type StorageConfig = Config['clickhouse']

/** Storage could not be opened; the message says which store and why. */
export class StorageError extends Error {
  readonly code = 'STORAGE_UNAVAILABLE'
}

/** What opening the embedded store says where chDB, an optional dependency of core, is not installed. */
const CHDB_MISSING =
  "the embedded engine (chdb) is not installed (Sieve's Docker image has it only when built with --build-arg WITH_CHDB=1): npm install chdb, or set CLICKHOUSE_URL to a ClickHouse server"

/**
 * chDB, loaded for the embedded store only: it is an optional dependency (its native engine is
 * about 540 MB), so a server role (CLICKHOUSE_URL) runs without it. Missing, the package or its
 * native library for this platform, it is a StorageError saying so, not a stack trace.
 */
async function loadChdb(): Promise<[typeof import('chdb/connection'), typeof import('chdb')]> {
  try {
    return await Promise.all([import('chdb/connection'), import('chdb')])
  } catch (err) {
    const { code, message } = err as { code?: string; message?: string }
    if (code === 'ERR_MODULE_NOT_FOUND' && /'chdb(\/[^']*)?'/.test(message ?? '')) throw new StorageError(CHDB_MISSING)
    // The package is there, its native library for this platform is not (installed with --omit=optional).
    if (code === 'CHDB_PLATFORM') throw new StorageError(`${CHDB_MISSING} (${message})`)
    throw new StorageError(`cannot load the embedded engine (chdb): ${message ?? String(err)}`)
  }
}

/**
 * Whether the embedded engine can be loaded here, checked without opening or creating a store:
 * a StorageError saying why not (an image built without it, a platform it has no build for).
 */
export async function checkEmbeddedEngine(): Promise<void> {
  await loadChdb()
}

/**
 * The nice value of the embedded engine's threads. When the CPU is short, the JS main thread, which
 * answers every request and scrape, then runs before the engine's inserts, merges, rollups and
 * reads. Under overload on 2 cores (bench:ingest --soak --overload, two rounds each, load 7-13):
 * scrape p99 850-989 ms against 1,199-4,174 ms with one scrape timed out, about as many spans
 * stored. The engine's own threads are lowered by `lowerEngineThreads`, in any process; ClickHouse's
 * `os_thread_priority` adds, where the process holds CAP_SYS_NICE, the Node thread a statement was
 * called from, for as long as the statement runs.
 */
const ENGINE_NICE = 10

/**
 * Opens the storage every part's SQL runs on (`Storage`): ClickHouse's client over chDB in this
 * process (embedded, one on-disk path per process) or over HTTP to a server. The database is
 * created if missing and is the default for every statement that follows.
 */
export async function createStorage(config: StorageConfig): Promise<Storage> {
  const database = quoteIdentifier(config.database)
  if (config.kind === 'embedded') {
    const path = resolve(config.path)
    // Loaded here, not at import: a process (or worker thread) that never opens the embedded engine
    // must not load its native library, which does not survive being loaded by two threads at once.
    const [{ createChdbConnection }, { drainPending, Session }] = await loadChdb()
    let bound: InstanceType<typeof Session> | undefined
    let connection: ChdbConnection | undefined
    let inserts: ChdbConnection
    try {
      mkdirSync(path, { recursive: true })
      // Server settings are taken from the connection that starts the process's one engine, and
      // createChdbConnection passes none: this session starts it, and is held until close.
      if (config.maxMemoryBytes) bound = new Session(path, { connectionArgs: [`--max_server_memory_usage=${config.maxMemoryBytes}`] })
      connection = createChdbConnection({ path })
      inserts = createChdbConnection({ path })
    } catch (err) {
      await connection?.close()
      bound?.close()
      throw new StorageError(
        `cannot open the embedded ClickHouse engine at ${path} (${(err as Error).message}). ` +
          'Only one process can use a data directory: is another `sieve up` running with this SIEVE_DATA_DIR?',
      )
    }
    // chDB ignores the client's `database` setting; its session keeps the database chosen by USE.
    const client = createClient({ connection } as Parameters<typeof createClient>[0])
    await client.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
    await client.command({ query: `USE ${database}` })
    await inserts.chdb.queryAsync(`USE ${database}`)
    await client.command({ query: `SET os_thread_priority = ${ENGINE_NICE}` })
    await inserts.chdb.queryAsync(`SET os_thread_priority = ${ENGINE_NICE}`)
    lowerEngineThreads(ENGINE_NICE)
    const storage = new EmbeddedStorage(client, inserts, () => bound?.close(), drainPending, config.fsync ?? false)
    // Tables that exist now; migrate() applies the settings to those it creates (table-settings.ts).
    await applyEmbeddedTableSettings(storage)
    return storage
  }
  // The client's own logger writes every failed request to stderr, stack and all, beside the one
  // line Sieve's caller reports for it: off, so a failure is said once, by whoever handles it.
  const auth = { url: config.url, username: config.username, password: config.password, log: { level: ClickHouseLogLevel.OFF } }
  const admin = createClient({ ...auth, request_timeout: 10_000 })
  try {
    // Created only when missing: CREATE DATABASE, IF NOT EXISTS or not, needs the right to create,
    // which a user that may only read (a dashboard's, readonly = 1) does not have.
    const found = await (
      await admin.query({
        query: 'SELECT name FROM system.databases WHERE name = {name:String}',
        query_params: { name: config.database },
        format: 'JSONEachRow',
      })
    ).json()
    if (found.length === 0) await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` })
  } catch (err) {
    // An answer from the server is no network problem: say what it refused.
    throw new StorageError(
      err instanceof ClickHouseError
        ? `ClickHouse at ${config.url} refused to open database ${config.database}: ${err.message.trim()} (${err.type ?? `code ${err.code}`})`
        : `cannot reach ClickHouse at ${config.url}: ${(err as Error).message}`,
    )
  } finally {
    await admin.close()
  }
  return new ClientStorage(createClient({ ...auth, database: config.database, ...(config.cluster ? { clickhouse_settings: CLUSTER_SETTINGS } : {}) }))
}

/**
 * On a cluster: an insert into a Distributed table returns once the shards hold its rows (not once
 * they are queued on the receiving node), on a majority of each shard's replicas, so a 200 means
 * stored. Queries that join or filter one Distributed table by another (the scorer's recovery,
 * export's selections) run each shard against its own local tables, which is right because every
 * such table is sharded by trace id. A read right after an insert may still land on a replica that
 * has not fetched it yet (migrations/README.md, "Cluster").
 */
const CLUSTER_SETTINGS: ClickHouseSettings = {
  // distributed_foreground_insert since ClickHouse 23.10; the client's settings know it by its older name.
  insert_distributed_sync: 1,
  insert_quorum: 'auto',
  distributed_product_mode: 'local',
}

/**
 * The embedded engine: ClickHouse's client over a chDB connection, and a second connection to the
 * same engine for `insertRows`. chDB runs one statement at a time per connection, while connections
 * to the same path run side by side on the one engine; so span inserts do not queue behind the
 * rollup rewrites, score inserts and dashboard reads on the client's connection. Rows go to chDB's
 * raw insert, which parses the payload without copying it through JS strings.
 */
class EmbeddedStorage extends ClientStorage {
  constructor(
    client: ClickHouseClient,
    private readonly inserts: ChdbConnection,
    private readonly closeBound: () => void,
    private readonly drainPending: () => Promise<void>,
    fsync: boolean,
  ) {
    super(client, fsync, engineStatement)
  }

  override async insertRows(table: string, columns: readonly string[], rows: readonly unknown[], settings?: ClickHouseSettings): Promise<void> {
    const values = await jsonLinesBuffer(rows, (row) => row)
    const ended = engineStatement()
    try {
      await this.inserts.chdb.rawInsert({
        table,
        columns: [...columns],
        format: 'JSONCompactEachRow',
        values,
        settings: settings as Record<string, string | number | boolean> | undefined,
      })
    } finally {
      ended()
    }
  }

  /**
   * A closed connection refuses new statements at once, but chDB destroys it only once the
   * statements still running inside the engine (on either connection) have ended; this resolves
   * only then, so a process may exit after it. Exiting with a statement still running in the engine
   * crashes in libchdb (segfault, mutex assertion, invalid opcode: its exit-time teardown races the
   * worker thread).
   */
  override async close(): Promise<void> {
    await this.inserts.close()
    await super.close()
    this.closeBound()
    await this.drainPending()
  }
}
