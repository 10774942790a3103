import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { accessSync, constants, cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, delimiter, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse, parseAllDocuments, stringify } from 'yaml'
import { envSchema, loadConfig } from '@sieve/core'
import { loadChecksConfig } from '@sieve/scoring'
import { loadScorerOptions } from '@sieve/scorer'
import { loadJudgeConfig } from '@sieve/judging'
import { commands } from '../src/commands/index.js'
import { prerequisite } from '@sieve/testkit'

/*
 * deploy/helm/sieve: `helm lint` and `helm template`, then the rendered objects read back: kinds,
 * probes, resources, the migrate hook, the HPA, and every Sieve container's environment validated
 * with core's loadConfig (secrets and the config file resolved from the rendered Secret and
 * ConfigMap), as cli/test/docker-compose.test.ts does for the compose file.
 *
 * Needs a helm: $HELM, .cache/helm/bin/helm (deploy/helm/tools/install-helm.sh, which .ci/run runs)
 * or helm on PATH. Without one the rendering tests are skipped, saying so.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const chart = join(root, 'deploy/helm/sieve')

function runs(path: string): boolean {
  try {
    accessSync(path, constants.X_OK)
  } catch {
    return false
  }
  return spawnSync(path, ['version'], { encoding: 'utf8', timeout: 60_000 }).status === 0
}

const helm = [
  process.env.HELM,
  join(root, '.cache/helm/bin/helm'),
  ...(process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, 'helm')),
]
  .filter((p): p is string => !!p)
  .find(runs)
const needsHelm = { skip: prerequisite(!helm && 'no helm binary found: set HELM, put helm on PATH, or run deploy/helm/tools/install-helm.sh (.ci/run does)') }

type Values = Record<string, unknown>
interface EnvVar {
  name: string
  value?: string
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean } }
}
interface Container {
  name: string
  image: string
  args?: string[]
  env?: EnvVar[]
  ports?: { name: string; containerPort: number }[]
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { memory?: string } }
  livenessProbe?: { httpGet?: { path: string; port: string } }
  readinessProbe?: { httpGet?: { path: string; port: string } }
  startupProbe?: { httpGet?: { path: string; port: string } }
  volumeMounts?: { name: string; mountPath: string }[]
}
interface PodSpec {
  containers: Container[]
  volumes?: { name: string; configMap?: { name: string } }[]
  restartPolicy?: string
}
interface K8sObject {
  apiVersion: string
  kind: string
  metadata: { name: string; annotations?: Record<string, string>; labels?: Record<string, string> }
  spec?: {
    replicas?: number
    selector?: Record<string, string> & { matchLabels?: Record<string, string> }
    template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec }
    scaleTargetRef?: { apiVersion: string; kind: string; name: string }
    minReplicas?: number
    maxReplicas?: number
    metrics?: { type: string; resource?: { name: string; target: { type: string; averageUtilization?: number } } }[]
    ports?: { name: string; port: number; targetPort: string }[]
  }
  data?: Record<string, string>
  stringData?: Record<string, string>
}

/** Values a production install gives; the chart's values.yaml supplies the rest. */
const productionValues: Values = {
  image: { repository: 'registry.example/sieve', tag: 'test' },
  clickhouse: { url: 'http://clickhouse.data.svc:8123', user: 'sieve', database: 'sieve', cluster: 'sieve_cluster' },
  kafka: { brokers: ['kafka-0.kafka:9092', 'kafka-1.kafka:9092', 'kafka-2.kafka:9092'], partitions: 12, replicationFactor: 3 },
  secrets: { apiKeys: 'k1:shop,k2:support', metricsToken: 'prometheus-token-0123456789', clickhousePassword: 'ch-secret', judgeApiKey: 'sk-judge' },
  judge: { baseUrl: 'https://judge.example/v1', model: 'gpt-4o-2024-08-06' },
  config: {
    checks: { agents: { support: { prohibited_tools: { tools: ['process_refund'] } } } },
    scorecards: { agents: { support: { passAt: 0.8, items: { prohibited_tools: { gate: true }, tool_errors: { weight: 1 } } } } },
    scorer: { maxOpenSpans: 200000 },
    judge: { sampling: { rate: 0.1 } },
  },
  ingester: { replicas: 3 },
}

function deepMerge(a: unknown, b: unknown): unknown {
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    const out: Record<string, unknown> = { ...(a as Record<string, unknown>) }
    for (const [key, value] of Object.entries(b)) out[key] = deepMerge(out[key], value)
    return out
  }
  return b === undefined ? a : b
}

const scratch = mkdtempSync(join(tmpdir(), 'sieve-helm-'))
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }))
let files = 0

function runHelm(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(helm!, args, { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 })
  return { status: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** `helm template sieve <chart> --namespace sieve -f <values>`: the objects, or the failure. */
function render(values: Values): { objects: K8sObject[]; error?: undefined } | { objects?: undefined; error: string } {
  const file = join(scratch, `values-${++files}.yaml`)
  writeFileSync(file, stringify(values))
  const result = runHelm(['template', 'sieve', chart, '--namespace', 'sieve', '-f', file])
  if (result.status !== 0) return { error: `${result.stderr}${result.stdout}` }
  const objects = parseAllDocuments(result.stdout)
    .map((doc) => {
      assert.deepEqual(doc.errors, [], 'rendered YAML parses')
      return doc.toJS() as K8sObject | null
    })
    .filter((o): o is K8sObject => o !== null)
  return { objects }
}

function rendered(values: Values): K8sObject[] {
  const result = render(values)
  assert.equal(result.error, undefined, `helm template: ${result.error}`)
  return result.objects!
}

const find = (objects: K8sObject[], kind: string, name: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name)
  assert.ok(found, `${kind} ${name} is rendered (have: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')})`)
  return found
}
const podOf = (o: K8sObject): PodSpec => o.spec!.template!.spec
const hook = (o: K8sObject) => o.metadata.annotations?.['helm.sh/hook']?.split(',') ?? []
const hookWeight = (o: K8sObject) => Number(o.metadata.annotations?.['helm.sh/hook-weight'] ?? 0)
const sieveWorkloads = (objects: K8sObject[]) => objects.filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
const secretRefs = (c: Container) => (c.env ?? []).flatMap((e) => (e.valueFrom?.secretKeyRef ? [e.valueFrom.secretKeyRef] : []))

/**
 * A container's environment as the kubelet gives it: literal values, and keys of the rendered
 * Secrets (a missing optional key leaves the variable unset). SIEVE_CONFIG_FILE is rewritten to a
 * copy of the file the ConfigMap mounted at that path holds.
 */
function containerEnv(objects: K8sObject[], pod: PodSpec, c: Container): Record<string, string> {
  const env: Record<string, string> = {}
  for (const e of c.env ?? []) {
    if (e.value !== undefined) {
      env[e.name] = String(e.value)
      continue
    }
    const ref = e.valueFrom?.secretKeyRef
    assert.ok(ref, `${c.name}: ${e.name} has a value or a secretKeyRef`)
    const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === ref.name)
    assert.ok(secret, `${c.name}: ${e.name} reads Secret ${ref.name}, which the chart renders`)
    const value = secret.stringData?.[ref.key] ?? (secret.data?.[ref.key] ? Buffer.from(secret.data[ref.key]!, 'base64').toString() : undefined)
    if (value === undefined) assert.ok(ref.optional, `${c.name}: ${e.name} is optional or present in ${ref.name}`)
    else env[e.name] = value
  }
  if (env.SIEVE_CONFIG_FILE) {
    const mount = (c.volumeMounts ?? []).find((m) => m.mountPath === dirname(env.SIEVE_CONFIG_FILE!))
    assert.ok(mount, `${c.name}: SIEVE_CONFIG_FILE's folder is mounted`)
    const configMap = pod.volumes?.find((v) => v.name === mount.name)?.configMap?.name
    assert.ok(configMap, `${c.name}: ${mount.mountPath} is a ConfigMap`)
    const text = find(objects, 'ConfigMap', configMap).data?.[basename(env.SIEVE_CONFIG_FILE)]
    assert.ok(text !== undefined, `${configMap} holds ${basename(env.SIEVE_CONFIG_FILE)}`)
    const copy = join(scratch, `sieve-${++files}.yaml`)
    writeFileSync(copy, text)
    env.SIEVE_CONFIG_FILE = copy
  }
  return env
}

// --- Without helm: the values are documented and typed ---------------------------------------

const valuesYaml = parse(readFileSync(join(chart, 'values.yaml'), 'utf8')) as Values

test('values.yaml, values.schema.json and deploy/README.md name the same values', () => {
  const schema = JSON.parse(readFileSync(join(chart, 'values.schema.json'), 'utf8')) as { properties: Record<string, { properties?: Record<string, unknown> }> }
  assert.deepEqual(Object.keys(schema.properties).sort(), Object.keys(valuesYaml).sort(), 'the schema has every top-level value, and no other')
  const readme = readFileSync(join(root, 'deploy/README.md'), 'utf8')
  // Every value to the second level (`collector.autoscaling`, `secrets.apiKeys`) is in the README's table.
  const paths = Object.entries(valuesYaml).flatMap(([key, value]) =>
    value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length && !['podSecurityContext', 'securityContext'].includes(key)
      ? Object.keys(value).map((sub) => `${key}.${sub}`)
      : [key],
  )
  const missing = paths.filter((p) => !readme.includes(`\`${p}\``))
  assert.deepEqual(missing, [], 'deploy/README.md documents these values')
})

// --- With helm -----------------------------------------------------------------------------

test('helm lint --strict passes on the chart with production values', needsHelm, () => {
  // `helm lint` takes the chart's own values.yaml: lint a copy whose values.yaml has them merged in.
  const copy = join(scratch, 'sieve')
  cpSync(chart, copy, { recursive: true })
  writeFileSync(join(copy, 'values.yaml'), stringify(deepMerge(valuesYaml, productionValues)))
  const result = runHelm(['lint', copy, '--strict'])
  assert.equal(result.status, 0, `helm lint: ${result.stdout}${result.stderr}`)
  assert.match(result.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/)
  assert.doesNotMatch(result.stdout, /\[(ERROR|WARNING)\]/)
})

test('helm template renders the roles, the hook and the autoscaler', needsHelm, () => {
  const objects = rendered(productionValues)
  const names = objects.map((o) => `${o.kind}/${o.metadata.name}`).sort()
  for (const expected of [
    'Deployment/sieve-collector',
    'Service/sieve-collector',
    'HorizontalPodAutoscaler/sieve-collector',
    'PodDisruptionBudget/sieve-collector',
    'Deployment/sieve-ingester',
    'Deployment/sieve-scorer',
    'Deployment/sieve-dashboard',
    'Service/sieve-dashboard',
    'Job/sieve-migrate',
    'Secret/sieve',
    'Secret/sieve-migrate',
    'ConfigMap/sieve-config',
  ])
    assert.ok(names.includes(expected), `${expected} in ${names.join(', ')}`)
  const roles = Object.fromEntries(sieveWorkloads(objects).map((o) => [o.metadata.name, podOf(o).containers[0]!.args]))
  assert.deepEqual(roles, {
    'sieve-collector': ['collector'],
    'sieve-ingester': ['ingester'],
    'sieve-scorer': ['scorer'],
    'sieve-dashboard': ['dashboard'],
    'sieve-migrate': ['migrate'],
  })
  for (const o of sieveWorkloads(objects)) assert.equal(podOf(o).containers[0]!.image, 'registry.example/sieve:test')

  // Services select their Deployment's pods and reach the named container port.
  for (const role of ['collector', 'dashboard']) {
    const deployment = find(objects, 'Deployment', `sieve-${role}`)
    const service = find(objects, 'Service', `sieve-${role}`)
    const labels = deployment.spec!.template!.metadata!.labels!
    for (const [k, v] of Object.entries(service.spec!.selector!)) assert.equal(labels[k], v, `${role} Service selects ${k}=${v}`)
    assert.deepEqual(deployment.spec!.selector!.matchLabels, service.spec!.selector)
    const portNames = podOf(deployment).containers[0]!.ports!.map((p) => p.name)
    for (const p of service.spec!.ports!) assert.ok(portNames.includes(p.targetPort), `${role}: port ${p.targetPort}`)
  }
  assert.equal(find(objects, 'Service', 'sieve-collector').spec!.ports![0]!.port, 4318, 'OTLP/HTTP on 4318')

  // The HPA scales the collector Deployment on CPU, which then leaves replicas to it.
  const hpa = find(objects, 'HorizontalPodAutoscaler', 'sieve-collector')
  assert.equal(hpa.apiVersion, 'autoscaling/v2')
  assert.deepEqual(hpa.spec!.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'sieve-collector' })
  assert.ok(hpa.spec!.minReplicas! >= 1 && hpa.spec!.maxReplicas! >= hpa.spec!.minReplicas!)
  assert.deepEqual(
    hpa.spec!.metrics!.map((m) => [m.type, m.resource?.name, m.resource?.target.type]),
    [['Resource', 'cpu', 'Utilization']],
  )
  const collector = find(objects, 'Deployment', 'sieve-collector')
  assert.equal(collector.spec!.replicas, undefined, 'no replicas on the Deployment: the HPA owns them')
  assert.ok(podOf(collector).containers[0]!.resources?.requests?.cpu, 'CPU utilisation is measured against a request')

  // Consumer groups: at most one member per partition.
  assert.equal(find(objects, 'Deployment', 'sieve-ingester').spec!.replicas, 3)
  assert.equal(find(objects, 'Deployment', 'sieve-scorer').spec!.replicas, 1)
})

test('every Sieve container has an environment the config schema accepts, its role reads', needsHelm, async () => {
  const objects = rendered(productionValues)
  const known = new Set([...Object.keys(envSchema.shape), 'SIEVE_CONFIG_FILE'])
  const readBy = new Map(commands.map((c) => [c.name, new Set<string>(c.env ?? [])]))
  // The dashboard's /api/status says whether the judge is on from JUDGE_MODEL, which
  // `sieve dashboard --help` does not list (cli/src/commands/dashboard.ts).
  readBy.get('dashboard')!.add('JUDGE_MODEL')
  for (const workload of sieveWorkloads(objects)) {
    const pod = podOf(workload)
    for (const container of pod.containers) {
      const role = container.args![0]!
      const env = containerEnv(objects, pod, container)
      for (const key of Object.keys(env)) {
        assert.ok(known.has(key), `${workload.metadata.name}: ${key} is not a Sieve setting (typo?)`)
        assert.ok(readBy.get(role)!.has(key), `${workload.metadata.name}: \`sieve ${role}\` does not read ${key}`)
      }
      const config = loadConfig(env)
      assert.deepEqual(config.clickhouse, {
        kind: 'server',
        url: 'http://clickhouse.data.svc:8123',
        username: 'sieve',
        password: 'ch-secret',
        database: 'sieve',
        cluster: 'sieve_cluster',
      })
      if (role === 'migrate') {
        assert.equal(config.retentionDays, 30)
        continue
      }
      assert.equal(config.host, '0.0.0.0')
      assert.equal(config.apiKeys.get('k2'), 'support')
      assert.equal(config.metricsToken, 'prometheus-token-0123456789')
      assert.deepEqual(Object.keys(config.sections).sort(), ['checks', 'judge', 'scorecards', 'scorer'])
      if (role !== 'dashboard') {
        assert.deepEqual(config.kafka, {
          brokers: ['kafka-0.kafka:9092', 'kafka-1.kafka:9092', 'kafka-2.kafka:9092'],
          clientId: 'sieve',
          spansTopic: 'sieve.spans',
          scoresTopic: 'sieve.scores',
          deadLetterTopic: 'sieve.spans.dead-letter',
          partitions: 12,
          replicationFactor: 3,
          minInsyncReplicas: 2,
          sessionTimeoutMs: 10_000,
        })
      }
      if (role === 'collector') assert.equal(config.maxBodyBytes, 16 * 1024 * 1024)
      if (role === 'scorer') {
        // The sections the scorer validates at start, from the ConfigMap.
        const checks = await loadChecksConfig(config.sections)
        assert.ok(checks.scorecards, 'scorecards are read')
        assert.equal(loadScorerOptions(config.sections).maxOpenSpans, 200000)
        const judge = loadJudgeConfig(config)
        assert.equal(judge?.model, 'gpt-4o-2024-08-06')
        assert.equal(judge?.apiKey, 'sk-judge', 'the judge key comes from the Secret')
        assert.equal(judge?.sampling.rate, 0.1)
      } else {
        assert.equal(env.JUDGE_API_KEY, undefined, `only the scorer gets the judge's key (${role})`)
      }
    }
  }
})

test('probes: liveness on /healthz, readiness on /readyz, for every role', needsHelm, async () => {
  const objects = rendered(productionValues)
  for (const role of ['collector', 'ingester', 'scorer', 'dashboard']) {
    const c = podOf(find(objects, 'Deployment', `sieve-${role}`)).containers[0]!
    const port = c.ports!.find((p) => p.name === c.livenessProbe?.httpGet?.port)
    assert.equal(port?.containerPort, 4318, `${role} probes the port SIEVE_PORT names`)
    assert.equal(c.env!.find((e) => e.name === 'SIEVE_PORT')?.value, '4318')
    assert.equal(c.livenessProbe?.httpGet?.path, '/healthz', `${role} liveness`)
    assert.equal(c.startupProbe?.httpGet?.path, '/healthz', `${role} startup`)
    assert.equal(c.readinessProbe?.httpGet?.path, '/readyz', `${role} readiness`)
  }
})

test('resources: every container requests CPU and memory and has a memory limit', needsHelm, () => {
  for (const workload of sieveWorkloads(rendered(productionValues))) {
    for (const c of podOf(workload).containers) {
      assert.ok(c.resources?.requests?.cpu && c.resources.requests.memory, `${workload.metadata.name} requests CPU and memory`)
      assert.ok(c.resources.limits?.memory, `${workload.metadata.name} has a memory limit`)
    }
  }
})

test('the migrate Job is a pre-install/pre-upgrade hook reading only what exists before the release', needsHelm, () => {
  for (const values of [productionValues, deepMerge(productionValues, { secrets: { apiKeys: '', existingSecret: 'sieve-secrets' } }) as Values]) {
    const objects = rendered(values)
    const job = find(objects, 'Job', 'sieve-migrate')
    assert.deepEqual(hook(job).sort(), ['pre-install', 'pre-upgrade'])
    assert.match(job.metadata.annotations?.['helm.sh/hook-delete-policy'] ?? '', /before-hook-creation/)
    assert.equal(podOf(job).restartPolicy, 'Never')
    // Hooks run before the release's own objects exist: a Secret the Job reads is a hook made first,
    // or one the user made (secrets.existingSecret); no ConfigMap of the release is mounted.
    for (const ref of secretRefs(podOf(job).containers[0]!)) {
      const secret = objects.find((o) => o.kind === 'Secret' && o.metadata.name === ref.name)
      if (secret) {
        assert.ok(hook(secret).includes('pre-install') && hook(secret).includes('pre-upgrade'), `${ref.name} is a hook`)
        assert.ok(hookWeight(secret) < hookWeight(job), `${ref.name} is made before the Job`)
      } else assert.equal(ref.name, (values.secrets as Values).existingSecret, `${ref.name} is the user's Secret`)
    }
    assert.deepEqual(podOf(job).volumes?.filter((v) => v.configMap) ?? [], [], 'no ConfigMap of the release')
  }
})

test('secrets: the API keys are required, or an existing Secret holds them all', needsHelm, () => {
  const { secrets: _secrets, ...noSecrets } = productionValues
  const refused = render(noSecrets)
  assert.match(refused.error ?? '', /secrets\.apiKeys is required/)

  const objects = rendered({ ...noSecrets, secrets: { existingSecret: 'sieve-secrets' } })
  assert.deepEqual(
    objects.filter((o) => o.kind === 'Secret'),
    [],
    'the chart makes no Secret',
  )
  const refs = sieveWorkloads(objects).flatMap((o) => podOf(o).containers.flatMap(secretRefs))
  assert.ok(refs.length > 0)
  for (const ref of refs) assert.equal(ref.name, 'sieve-secrets', `${ref.key} from the existing Secret`)
  assert.deepEqual([...new Set(refs.map((r) => r.key))].sort(), ['CLICKHOUSE_PASSWORD', 'JUDGE_API_KEY', 'SIEVE_API_KEYS', 'SIEVE_METRICS_TOKEN'])
  assert.deepEqual(
    refs
      .filter((r) => !r.optional)
      .map((r) => r.key)
      .filter((k, i, all) => all.indexOf(k) === i),
    ['SIEVE_API_KEYS'],
  )
})

test('ingesters and scorers beyond the partitions are refused; autoscaling can be turned off', needsHelm, () => {
  for (const role of ['ingester', 'scorer']) {
    const refused = render(deepMerge(productionValues, { [role]: { replicas: 13 } }) as Values)
    assert.match(refused.error ?? '', new RegExp(`${role}\\.replicas \\(13\\) is more than kafka\\.partitions \\(12\\)`))
  }
  const objects = rendered(deepMerge(productionValues, { collector: { replicas: 3, autoscaling: { enabled: false } } }) as Values)
  assert.equal(
    objects.find((o) => o.kind === 'HorizontalPodAutoscaler'),
    undefined,
  )
  assert.equal(find(objects, 'Deployment', 'sieve-collector').spec!.replicas, 3)
})

test("the README's helm install settings render, Helm's list syntax included", needsHelm, () => {
  const readme = readFileSync(join(root, 'deploy/README.md'), 'utf8')
  const install = /^helm install sieve deploy\/helm\/sieve (.*?)$/ms.exec(readme.replace(/ \\\n\s*/g, ' '))
  assert.ok(install, 'deploy/README.md shows `helm install sieve deploy/helm/sieve ...`')
  // Its --set arguments as the shell hands them over: quotes taken off, the token a command makes given.
  const sets = [...install[1]!.matchAll(/--set ('[^']*'|[^\s$]*\$\([^)]*\)|\S+)/g)].map((m) =>
    m[1]!.replace(/^'(.*)'$/, '$1').replace('$(openssl rand -hex 24)', 'ab'.repeat(24)),
  )
  assert.ok(
    sets.some((s) => /^kafka\.brokers=\{.+,.+\}$/.test(s)),
    "a list given with Helm's {a,b} syntax",
  )
  const result = runHelm(['template', 'sieve', chart, '--namespace', 'sieve', ...sets.flatMap((s) => ['--set', s])])
  assert.equal(result.status, 0, result.stderr)
  const objects = parseAllDocuments(result.stdout)
    .map((doc) => doc.toJS() as K8sObject | null)
    .filter((o): o is K8sObject => o !== null)
  const collector = podOf(find(objects, 'Deployment', 'sieve-collector')).containers[0]!
  assert.equal(collector.env?.find((e) => e.name === 'KAFKA_BROKERS')?.value, 'kafka-0.kafka:9092,kafka-1.kafka:9092')
  assert.equal(collector.image, `registry.example.com/sieve:${(parse(readFileSync(join(chart, 'Chart.yaml'), 'utf8')) as { appVersion: string }).appVersion}`)
})
