import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { envSchema, loadConfig } from '@sieve/core'

const composePath = fileURLToPath(new URL('../../deploy/docker-compose.yml', import.meta.url))

interface Service {
  image?: string
  build?: unknown
  command?: string[]
  environment?: Record<string, string | number | boolean>
  healthcheck?: { test?: unknown; disable?: boolean }
  depends_on?: Record<string, { condition: string }>
}

const compose = parse(readFileSync(composePath, 'utf8'), { merge: true }) as { services: Record<string, Service> }
const sieveServices = Object.entries(compose.services).filter(([, s]) => s.build !== undefined)

/** Compose's `${VAR:-default}` and `${VAR:?message}`, as a user who set the required ones gets them. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (given[name] !== undefined) return given[name]
    if (op === '-') return arg ?? ''
    throw new Error(`${name} is required: ${arg}`)
  })
}

const userEnv = { SIEVE_API_KEYS: 'k1:shop,k2:support', CLICKHOUSE_PASSWORD: 'secret' }

test('every Sieve service in docker-compose.yml has an environment the config schema accepts', () => {
  assert.deepEqual(sieveServices.map(([name]) => name).sort(), ['collector', 'dashboard', 'ingester', 'migrate', 'scorer'])
  const known = new Set(Object.keys(envSchema.shape))
  for (const [name, service] of sieveServices) {
    const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v), userEnv)]))
    for (const key of Object.keys(env)) assert.ok(known.has(key), `${name}: ${key} is not a Sieve setting (typo?)`)
    const config = loadConfig(env)
    assert.equal(config.clickhouse.kind, 'server', `${name} uses the ClickHouse server`)
    assert.equal(config.kafka?.brokers.join(), 'kafka:9092', `${name} uses Kafka`)
    assert.equal(config.apiKeys.get('k2'), 'support')
  }
})

test('docker-compose.yml fails fast without the secrets a user must choose', () => {
  const [, collector] = sieveServices.find(([name]) => name === 'collector')!
  assert.throws(() => interpolate(String(collector.environment!.SIEVE_API_KEYS), {}), /SIEVE_API_KEYS is required/)
  assert.throws(() => interpolate(String(collector.environment!.CLICKHOUSE_PASSWORD), {}), /CLICKHOUSE_PASSWORD is required/)
})

test('every long-running service has a health check and starts after what it needs is healthy', () => {
  for (const [name, service] of Object.entries(compose.services)) {
    if (name === 'migrate') continue
    assert.ok(service.healthcheck?.test && !service.healthcheck.disable, `${name} has a health check`)
  }
  const needs = (name: string) => compose.services[name]!.depends_on ?? {}
  assert.equal(needs('collector').kafka?.condition, 'service_healthy')
  for (const name of ['ingester', 'scorer']) {
    assert.equal(needs(name).kafka?.condition, 'service_healthy')
    assert.equal(needs(name).clickhouse?.condition, 'service_healthy')
    assert.equal(needs(name).migrate?.condition, 'service_completed_successfully')
  }
  const roles = Object.fromEntries(sieveServices.map(([name, s]) => [name, s.command?.[0]]))
  assert.deepEqual(roles, { migrate: 'migrate', collector: 'collector', ingester: 'ingester', scorer: 'scorer', dashboard: 'dashboard' })
})
