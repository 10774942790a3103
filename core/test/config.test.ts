import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'
import { migrateOptionsOf } from '../src/storage/migrate.js'

test('defaults give the embedded engine under ./data and the in-process queue', () => {
  const config = loadConfig({})
  assert.equal(config.host, '127.0.0.1')
  assert.equal(config.port, 4318)
  assert.deepEqual(config.clickhouse, { kind: 'embedded', path: './data/clickhouse', database: 'sieve', fsync: false, maxMemoryBytes: 2 * 1024 * 1024 * 1024 })
  assert.equal(config.kafka, undefined)
  assert.equal(config.apiKeys.size, 0)
})

test('a bad value names the variable, the rule and what was given', () => {
  assert.throws(
    () => loadConfig({ SIEVE_PORT: 'eighty', SIEVE_RETENTION_DAYS: '-1' }),
    (err: unknown) => {
      assert.ok(err instanceof ConfigError)
      assert.equal(err.problems.length, 2)
      assert.match(err.message, /SIEVE_PORT: .*\(got 'eighty'\)/)
      assert.match(err.message, /SIEVE_RETENTION_DAYS: .*\(got '-1'\)/)
      return true
    },
  )
})

test('API keys map to projects; a bare key belongs to the default project', () => {
  const config = loadConfig({ SIEVE_API_KEYS: 'k1:shop, k2' })
  assert.deepEqual(
    [...config.apiKeys],
    [
      ['k1', 'shop'],
      ['k2', 'default'],
    ],
  )
  assert.throws(
    () => loadConfig({ SIEVE_API_KEYS: 'k0, k1:bad project' }),
    (err: Error) => /SIEVE_API_KEYS: entry 2 must look like KEY or KEY:PROJECT/.test(err.message) && !err.message.includes('k1'),
  )
})

test('SIEVE_FSYNC turns on fsync of the embedded engine; with a server it is refused, not ignored', () => {
  const fsync = (value: string) => {
    const { clickhouse } = loadConfig({ SIEVE_FSYNC: value })
    return clickhouse.kind === 'embedded' && clickhouse.fsync
  }
  assert.equal(fsync('1'), true)
  assert.equal(fsync('true'), true)
  assert.equal(fsync('0'), false)
  assert.equal(fsync('false'), false)
  assert.throws(() => loadConfig({ SIEVE_FSYNC: 'always' }), /SIEVE_FSYNC: .*\(got 'always'\)/)
  assert.throws(() => loadConfig({ SIEVE_FSYNC: '1', CLICKHOUSE_URL: 'http://ch:8123' }), /SIEVE_FSYNC: .*<merge_tree>/)
  assert.equal(loadConfig({ SIEVE_FSYNC: '0', CLICKHOUSE_URL: 'http://ch:8123' }).clickhouse.kind, 'server')
})

test('SIEVE_ENGINE_MAX_MEMORY bounds the embedded engine (2 GiB unless set); with a server it is refused, not ignored', () => {
  const bound = (env: Record<string, string>) => {
    const { clickhouse } = loadConfig(env)
    return clickhouse.kind === 'embedded' && clickhouse.maxMemoryBytes
  }
  assert.equal(bound({}), 2 * 1024 * 1024 * 1024)
  assert.equal(bound({ SIEVE_ENGINE_MAX_MEMORY: '536870912' }), 536870912)
  assert.throws(() => loadConfig({ SIEVE_ENGINE_MAX_MEMORY: '512M' }), /SIEVE_ENGINE_MAX_MEMORY: .*\(got '512M'\)/)
  assert.throws(
    () => loadConfig({ SIEVE_ENGINE_MAX_MEMORY: '536870912', CLICKHOUSE_URL: 'http://ch:8123' }),
    /SIEVE_ENGINE_MAX_MEMORY: .*max_server_memory_usage/,
  )
  assert.equal(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123' }).clickhouse.kind, 'server')
})

test('servers are chosen by CLICKHOUSE_URL and KAFKA_BROKERS', () => {
  const config = loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', KAFKA_BROKERS: 'a:9092,b:9092' })
  assert.equal(config.clickhouse.kind, 'server')
  assert.deepEqual(config.kafka?.brokers, ['a:9092', 'b:9092'])
  assert.equal(config.kafka?.spansTopic, 'sieve.spans')
})

test('KAFKA_MIN_INSYNC_REPLICAS: unset leaves it to the brokers; more than the replication factor is refused', () => {
  const kafka = (env: Record<string, string>) => loadConfig({ KAFKA_BROKERS: 'a:9092', ...env }).kafka!
  assert.equal(kafka({}).minInsyncReplicas, undefined)
  assert.equal(kafka({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '2' }).minInsyncReplicas, 2)
  assert.throws(
    () => kafka({ KAFKA_REPLICATION_FACTOR: '3', KAFKA_MIN_INSYNC_REPLICAS: '4' }),
    /KAFKA_MIN_INSYNC_REPLICAS: 4 is more than KAFKA_REPLICATION_FACTOR \(3\)/,
  )
  assert.throws(() => kafka({ KAFKA_MIN_INSYNC_REPLICAS: '0' }), /KAFKA_MIN_INSYNC_REPLICAS: .*\(got '0'\)/)
})

test('CLICKHOUSE_CLUSTER names the cluster migrations run ON; it needs a server', () => {
  const config = loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'sieve_cluster' })
  assert.equal(config.clickhouse.kind === 'server' && config.clickhouse.cluster, 'sieve_cluster')
  assert.deepEqual(migrateOptionsOf(config), { retentionDays: 30, cluster: 'sieve_cluster' })
  assert.deepEqual(migrateOptionsOf(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123' })), { retentionDays: 30 })
  assert.throws(() => loadConfig({ CLICKHOUSE_CLUSTER: 'sieve_cluster' }), /CLICKHOUSE_CLUSTER: .*set CLICKHOUSE_URL/)
  assert.throws(() => loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'x; DROP' }), /CLICKHOUSE_CLUSTER: a cluster name/)
})

test('the config file holds settings and sections; the environment wins', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-config-'))
  const file = join(dir, 'sieve.yaml')
  writeFileSync(file, 'SIEVE_PORT: 5000\nSIEVE_RETENTION_DAYS: 7\nchecks:\n  default: [budgets]\n')
  const config = loadConfig({ SIEVE_CONFIG_FILE: file, SIEVE_PORT: '6000' })
  assert.equal(config.port, 6000)
  assert.equal(config.retentionDays, 7)
  assert.deepEqual(config.sections, { checks: { default: ['budgets'] } })
  assert.throws(() => loadConfig({ SIEVE_CONFIG_FILE: join(dir, 'missing.yaml') }), /SIEVE_CONFIG_FILE: cannot read/)
})

test('SIEVE_METRICS_TOKEN is the bearer token /metrics requires; a bad one is named, never echoed', () => {
  assert.equal(loadConfig({}).metricsToken, undefined)
  assert.equal(loadConfig({ SIEVE_METRICS_TOKEN: 'scrape-0123456789abcdef' }).metricsToken, 'scrape-0123456789abcdef')
  for (const bad of ['short', 'has a space in it 0123456789']) {
    assert.throws(
      () => loadConfig({ SIEVE_METRICS_TOKEN: bad }),
      (err: unknown) => {
        assert.ok(err instanceof ConfigError)
        assert.match(err.message, /SIEVE_METRICS_TOKEN: /)
        assert.ok(!err.message.includes(bad), 'the value stays out of the message')
        return true
      },
    )
  }
})

test('no setting that holds a key, token, password or secret is echoed by a configuration error', () => {
  // SIEVE_API_KEYS takes key:project pairs; a malformed list still holds real keys.
  for (const [name, value] of [
    ['SIEVE_API_KEYS', 'sk-live-abc:shop:extra'],
    ['CLICKHOUSE_URL', 'not a url'],
    ['SIMULATOR_BASE_URL', 'nope'],
  ] as const) {
    try {
      loadConfig({ [name]: value })
    } catch (err) {
      assert.match((err as Error).message, new RegExp(`${name}: `))
      if (/KEY|TOKEN|PASSWORD|SECRET/.test(name)) assert.doesNotMatch((err as Error).message, /sk-live-abc/)
    }
  }
})
