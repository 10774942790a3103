import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Storage } from '@sieve/core'
import { parse } from 'yaml'
import { listen } from '@sieve/http'
import { envSchema, loadConfig } from '@sieve/core'
import { createDashboardApp } from '@sieve/dashboard'

/*
 * deploy/docker-compose.yml (and the three-broker deploy/docker-compose.ha.yml on top of it) read as
 * Docker Compose reads them: YAML with merge keys, ${VAR} interpolation, an override file merged
 * over the main one. There is no Docker engine here, so what is checked is the files: every Sieve
 * environment block against core's config schema, start order, the published OTLP port, scraping,
 * Grafana's provisioning and the Kafka replication settings.
 */

const deploy = fileURLToPath(new URL('../../deploy/', import.meta.url))

type Env = Record<string, string | number | boolean | null>
interface Service {
  image?: string
  build?: unknown
  command?: string[]
  environment?: Env
  ports?: string[]
  expose?: string[]
  volumes?: string[]
  secrets?: (string | { source: string; target?: string })[]
  healthcheck?: { test?: string[]; disable?: boolean }
  depends_on?: Record<string, { condition: string }>
}
interface Compose {
  services: Record<string, Service>
  volumes?: Record<string, unknown>
  secrets?: Record<string, { environment?: string; file?: string }>
}

function load(file: string): Compose {
  return parse(readFileSync(join(deploy, file), 'utf8'), { merge: true }) as Compose
}

/**
 * `docker compose -f a.yml -f b.yml`: services and top-level maps merged key by key (environment and
 * depends_on included), anything else (command, a health check's test) replaced. Compose appends
 * ports and volumes instead; the override file sets neither on a service the main file has.
 */
function mergeCompose(base: Compose, over: Compose): Compose {
  const merge = (a: unknown, b: unknown): unknown => {
    if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
      const out: Record<string, unknown> = { ...(a as Record<string, unknown>) }
      for (const [key, value] of Object.entries(b)) out[key] = merge(out[key], value)
      return out
    }
    return b === undefined ? a : b
  }
  return merge(base, over) as Compose
}

/** Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?message}`, as a user who set the required ones gets them. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_m, name: string, op?: string, arg?: string) => {
    if (given[name] !== undefined) return given[name]
    if (op === '?') throw new Error(`${name} is required: ${arg}`)
    return arg ?? ''
  })
}

const userEnv = {
  SIEVE_API_KEYS: 'k1:shop,k2:support',
  SIEVE_METRICS_TOKEN: 'prometheus-token-0123456789',
  CLICKHOUSE_PASSWORD: 'secret',
  GRAFANA_ADMIN_PASSWORD: 'grafana-secret',
}

const envOf = (service: Service, given: Record<string, string> = userEnv): Record<string, string> =>
  Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, interpolate(String(v ?? ''), given)]))

const compose = load('docker-compose.yml')
const sieveServicesOf = (c: Compose) => Object.entries(c.services).filter(([, s]) => s.build !== undefined)
const sieveServices = sieveServicesOf(compose)
const service = (c: Compose, name: string): Service => {
  const found = c.services[name]
  assert.ok(found, `service ${name} is defined`)
  return found
}
/** `./grafana/x:/etc/y:ro` → ['./grafana/x', '/etc/y']. */
const mounts = (s: Service) => (s.volumes ?? []).map((v) => v.split(':') as [string, string, string?])

function checkEnvironments(c: Compose, brokers: string): void {
  const known = new Set(Object.keys(envSchema.shape))
  for (const [name, s] of sieveServicesOf(c)) {
    const env = envOf(s)
    for (const key of Object.keys(env)) assert.ok(known.has(key), `${name}: ${key} is not a Sieve setting (typo?)`)
    const config = loadConfig(env)
    assert.equal(config.clickhouse.kind, 'server', `${name} uses the ClickHouse server`)
    assert.equal(config.kafka?.brokers.join(), brokers, `${name} uses Kafka`)
    assert.equal(config.apiKeys.get('k2'), 'support')
    assert.equal(config.metricsToken, userEnv.SIEVE_METRICS_TOKEN, `${name} gives /metrics to Prometheus's token`)
  }
}

test('every Sieve service in docker-compose.yml has an environment the config schema accepts', () => {
  assert.deepEqual(sieveServices.map(([name]) => name).sort(), ['collector', 'dashboard', 'ingester', 'migrate', 'scorer'])
  checkEnvironments(compose, 'kafka:9092')
})

test('docker-compose.yml fails fast without the secrets a user must choose', () => {
  const collector = service(compose, 'collector')
  const without = (name: string) => Object.fromEntries(Object.entries(userEnv).filter(([key]) => key !== name))
  assert.throws(() => envOf(collector, {}), /is required/)
  for (const name of ['SIEVE_API_KEYS', 'CLICKHOUSE_PASSWORD', 'SIEVE_METRICS_TOKEN']) {
    assert.throws(() => envOf(collector, without(name)), new RegExp(`${name} is required`))
  }
  assert.throws(() => envOf(service(compose, 'grafana'), without('GRAFANA_ADMIN_PASSWORD')), /GRAFANA_ADMIN_PASSWORD is required/)
})

test('every long-running service has a health check and starts after what it needs is healthy', () => {
  for (const [name, s] of Object.entries(compose.services)) {
    if (name === 'migrate') continue
    assert.ok(s.healthcheck?.test && !s.healthcheck.disable, `${name} has a health check`)
  }
  const needs = (name: string) => service(compose, name).depends_on ?? {}
  // The collector's readiness (/readyz) needs ClickHouse reachable and every migration applied.
  for (const name of ['collector', 'ingester', 'scorer']) {
    assert.equal(needs(name).kafka?.condition, 'service_healthy', `${name} after kafka`)
    assert.equal(needs(name).clickhouse?.condition, 'service_healthy', `${name} after clickhouse`)
    assert.equal(needs(name).migrate?.condition, 'service_completed_successfully', `${name} after migrate`)
  }
  assert.equal(needs('dashboard').migrate?.condition, 'service_completed_successfully')
  assert.equal(needs('migrate').clickhouse?.condition, 'service_healthy')
  const roles = Object.fromEntries(sieveServices.map(([name, s]) => [name, s.command?.[0]]))
  assert.deepEqual(roles, { migrate: 'migrate', collector: 'collector', ingester: 'ingester', scorer: 'scorer', dashboard: 'dashboard' })
})

/** Storage that does not answer: a readiness check must say so (503), not fail (500) or be missing (404). */
const unreachable = { ping: async () => ({ success: false, error: new Error('down') }) } as unknown as Storage

test("each Sieve service's health check asks a path its role serves", async () => {
  const path = (name: string) => /fetch\('http:\/\/127\.0\.0\.1:4318(\/[a-z]+)'\)/.exec(service(compose, name).healthcheck?.test?.join(' ') ?? '')?.[1]
  // Every role's /readyz is storage reachable + migrations applied (collector/src/api/storage-readiness.ts).
  for (const name of ['collector', 'ingester', 'scorer', 'dashboard']) assert.equal(path(name), '/readyz', name)
  // `sieve dashboard` is its own app: the path must be its readiness check there, not a 404.
  const server = await listen(createDashboardApp({ client: unreachable, apiKeys: new Map([['k', 'p']]) }), '127.0.0.1', 0)
  try {
    const answer = await fetch(`${server.url}/readyz`)
    assert.equal(answer.status, 503, 'sieve dashboard reports storage on /readyz')
    assert.match(((await answer.json()) as { message: string }).message, /storage unreachable: down/)
  } finally {
    await server.stop()
  }
})

test('OTLP/HTTP is published on 4318 by a load balancer in front of every collector replica', () => {
  const collector = service(compose, 'collector')
  assert.equal(collector.ports, undefined, 'replicas cannot share a host port: the collectors publish none')
  const publishers = Object.entries(compose.services).filter(
    ([, s]) => (s.ports ?? []).some((p) => interpolate(p, userEnv).endsWith(':4318')) && s.build === undefined,
  )
  assert.equal(publishers.length, 1, 'one service publishes OTLP/HTTP')
  const [lbName, lb] = publishers[0]!
  assert.deepEqual(
    lb.ports!.map((p) => interpolate(p, userEnv)),
    ['4318:4318'],
  )
  assert.match(lb.image ?? '', /^nginx:1\.(2[89]|[3-9]\d)/, 'nginx 1.28+ (re-resolves upstream names: `server ... resolve`)')
  assert.equal(lb.depends_on?.collector?.condition, 'service_healthy', `${lbName} starts once collectors are ready`)

  const [source, target] = mounts(lb).find(([, t]) => t.startsWith('/etc/nginx/templates/')) ?? []
  assert.ok(source && target?.endsWith('.conf.template'), 'the nginx config is a template from deploy/')
  const conf = readFileSync(join(deploy, source), 'utf8')
  const upstream = /proxy_pass http:\/\/([a-z_]+);/.exec(conf)?.[1]
  assert.ok(upstream, 'requests are proxied to an upstream')
  const block = new RegExp(`upstream ${upstream} \\{([^}]*)\\}`).exec(conf)?.[1] ?? ''
  assert.match(block, /server collector:4318 resolve;/, 'every collector replica, found again by DNS as they scale')
  assert.match(block, /resolver 127\.0\.0\.11 /, "Docker's embedded DNS")
  assert.match(conf, /location = \/metrics \{\s*return 404;/, 'per-replica /metrics is not served on the published port')
  // The body limit: the load balancer's equals the collectors'.
  assert.match(conf, /client_max_body_size \$\{SIEVE_MAX_BODY_BYTES\};/)
  assert.equal(envOf(lb).SIEVE_MAX_BODY_BYTES, envOf(collector).SIEVE_MAX_BODY_BYTES)
  assert.equal(loadConfig(envOf(collector)).maxBodyBytes, Number(envOf(lb).SIEVE_MAX_BODY_BYTES))
  assert.equal(envOf(lb).NGINX_ENVSUBST_FILTER, '^SIEVE_', "only SIEVE_* variables are substituted, never nginx's own $variables")
  const healthPath = /127\.0\.0\.1:4318(\/[a-z/]+)/.exec(lb.healthcheck?.test?.join(' ') ?? '')?.[1]
  assert.ok(healthPath && conf.includes(`location = ${healthPath} `), `the health check (${healthPath}) is answered by nginx itself`)
})

test('Prometheus scrapes /metrics of every collector, ingester and scorer with the metrics token', () => {
  const prometheus = service(compose, 'prometheus')
  const [source] = mounts(prometheus).find(([, t]) => t === '/etc/prometheus/prometheus.yml') ?? []
  assert.ok(source, 'prometheus.yml from deploy/ is mounted')
  const config = parse(readFileSync(join(deploy, source), 'utf8')) as {
    scrape_configs: {
      metrics_path?: string
      authorization?: { type?: string; credentials_file?: string }
      dns_sd_configs?: { names: string[]; type: string; port: number }[]
    }[]
  }
  const job = config.scrape_configs.find((j) => j.dns_sd_configs)
  assert.ok(job, 'a job finds the replicas by DNS')
  // Every role that serves /metrics (createApp: collector, ingester, scorer), on the port it listens on.
  const scraped = sieveServices.filter(([, s]) => ['collector', 'ingester', 'scorer'].includes(s.command?.[0] ?? '')).map(([name]) => name)
  const sd = job.dns_sd_configs![0]!
  assert.deepEqual([...sd.names].sort(), scraped.sort())
  assert.equal(sd.type, 'A')
  for (const name of scraped) assert.equal(String(sd.port), envOf(service(compose, name)).SIEVE_PORT)
  assert.equal(job.metrics_path ?? '/metrics', '/metrics')

  // With SIEVE_API_KEYS set, /metrics answers other containers only with SIEVE_METRICS_TOKEN
  // (collector/README.md, Metrics): the token is required, and Prometheus reads the same value.
  assert.equal(job.authorization?.type ?? 'Bearer', 'Bearer')
  const secretName = /^\/run\/secrets\/(.+)$/.exec(job.authorization?.credentials_file ?? '')?.[1]
  assert.ok(secretName, 'the bearer token is read from a compose secret file')
  assert.ok(
    prometheus.secrets?.some((s) => (typeof s === 'string' ? s : s.source) === secretName),
    `prometheus is given the ${secretName} secret`,
  )
  assert.equal(compose.secrets?.[secretName]?.environment, 'SIEVE_METRICS_TOKEN', 'the secret holds SIEVE_METRICS_TOKEN')
  const { SIEVE_METRICS_TOKEN: _token, ...withoutToken } = userEnv
  assert.throws(() => envOf(service(compose, 'scorer'), withoutToken), /SIEVE_METRICS_TOKEN is required/)
  for (const [name] of mounts(prometheus).filter(([s]) => !s.startsWith('.'))) assert.ok(name in (compose.volumes ?? {}), `volume ${name} is declared`)
})

test('Grafana is a service provisioned from deploy/grafana/', () => {
  const grafana = service(compose, 'grafana')
  const mounted = new Map(mounts(grafana).map(([s, t]) => [t, s]))
  assert.equal(mounted.get('/etc/grafana/provisioning'), './grafana/provisioning')
  const providers = parse(readFileSync(join(deploy, 'grafana/provisioning/dashboards/sieve.yaml'), 'utf8')) as { providers: { options: { path: string } }[] }
  const dashboards = providers.providers[0]!.options.path
  assert.equal(mounted.get(dashboards), './grafana/dashboards', `the dashboards are where the provider reads them (${dashboards})`)
  for (const [target, source] of mounted)
    if (source.startsWith('.')) assert.ok(existsSync(join(deploy, source)), `${source} (for ${target}) exists`)
    else assert.ok(source in (compose.volumes ?? {}), `volume ${source} is declared`)

  // Every ${VAR} the data sources use is set, pointing at this compose file's services.
  const datasources = readFileSync(join(deploy, 'grafana/provisioning/datasources/sieve.yaml'), 'utf8')
  const env = envOf(grafana)
  for (const [, name] of datasources.matchAll(/\$\{([A-Z_]+)\}/g)) assert.ok(env[name!], `grafana sets ${name}`)
  assert.ok(env.CLICKHOUSE_HOST! in compose.services)
  assert.equal(env.CLICKHOUSE_PASSWORD, userEnv.CLICKHOUSE_PASSWORD)
  assert.equal(env.PROMETHEUS_URL, 'http://prometheus:9090')
  for (const [, type] of datasources.matchAll(/type: ([a-z-]+)/g)) {
    if (type !== 'prometheus') assert.ok(env.GF_INSTALL_PLUGINS?.split(',').includes(type!), `the ${type} plugin is installed`)
  }
  assert.ok(env.GF_SECURITY_ADMIN_PASSWORD, 'no default admin password on a published port')
  assert.equal(grafana.depends_on?.clickhouse?.condition, 'service_healthy')
  assert.equal(grafana.depends_on?.prometheus?.condition, 'service_healthy')
  assert.ok((grafana.ports ?? []).length === 1, 'Grafana is published')
})

test('docker-compose.ha.yml: three KRaft brokers, topics with replication factor 3, min.insync.replicas=2', () => {
  const ha = mergeCompose(compose, load('docker-compose.ha.yml'))
  const brokers = Object.entries(ha.services).filter(([, s]) => s.image?.startsWith('apache/kafka:'))
  assert.equal(brokers.length, 3, 'three brokers')
  const envs = brokers.map(([name, s]) => [name, envOf(s)] as const)
  const voters = envs.map(([name, env]) => `${env.KAFKA_NODE_ID}@${name}:9093`)
  assert.equal(new Set(envs.map(([, env]) => env.KAFKA_NODE_ID)).size, 3, 'distinct node ids')
  const dataVolumes = brokers.map(([, s]) => mounts(s).find(([, t]) => t === '/var/lib/kafka/data')?.[0])
  assert.equal(new Set(dataVolumes).size, 3, 'a data volume each')
  for (const volume of dataVolumes) assert.ok(volume! in (ha.volumes ?? {}), `volume ${volume} is declared`)
  for (const [name, env] of envs) {
    assert.equal(env.KAFKA_PROCESS_ROLES, 'broker,controller', name)
    assert.deepEqual(env.KAFKA_CONTROLLER_QUORUM_VOTERS!.split(',').sort(), [...voters].sort(), `${name}: all three vote`)
    assert.equal(env.KAFKA_ADVERTISED_LISTENERS, `PLAINTEXT://${name}:9092`)
    assert.equal(env.CLUSTER_ID, envs[0]![1].CLUSTER_ID, `${name}: one cluster id`)
    assert.match(env.CLUSTER_ID ?? '', /^[A-Za-z0-9_-]{22}$/, 'a base64 UUID, as kafka-storage.sh random-uuid prints')
    // Sieve's topics are created with the same settings; others (Kafka's own, any made by hand) follow these.
    assert.equal(env.KAFKA_MIN_INSYNC_REPLICAS, '2', `${name}: min.insync.replicas`)
    assert.equal(env.KAFKA_DEFAULT_REPLICATION_FACTOR, '3')
    assert.equal(env.KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR, '3', 'consumer offsets replicated too')
    assert.equal(env.KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR, '3')
    assert.equal(env.KAFKA_TRANSACTION_STATE_LOG_MIN_ISR, '2')
    assert.equal(env.KAFKA_UNCLEAN_LEADER_ELECTION_ENABLE, 'false')
    assert.ok(ha.services[name]!.healthcheck?.test, `${name} has a health check`)
  }

  const bootstrap = brokers.map(([name]) => `${name}:9092`).join()
  checkEnvironments(ha, bootstrap)
  for (const [name, s] of sieveServicesOf(ha)) {
    const kafka = loadConfig(envOf(s)).kafka!
    assert.equal(kafka.replicationFactor, 3, `${name} creates topics with 3 replicas`)
    assert.equal(kafka.minInsyncReplicas, 2, `${name} creates topics that need two in-sync replicas`)
    // One broker can be down and acks from all in-sync replicas still succeed.
    assert.ok(Number(envs[0]![1].KAFKA_MIN_INSYNC_REPLICAS) < kafka.replicationFactor)
    if (['collector', 'ingester', 'scorer'].includes(name)) {
      for (const [broker] of brokers) assert.equal(s.depends_on?.[broker]?.condition, 'service_healthy', `${name} after ${broker}`)
      assert.equal(s.depends_on?.migrate?.condition, 'service_completed_successfully', `${name} keeps the main file's order`)
    }
  }
})
