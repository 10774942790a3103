// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Storage } from '@sieve/core'
import { parse as parseYaml } from 'yaml'
import { openEngine } from './support/engine.js'
import { seed, traceId } from './support/seed.js'

const grafana = join(dirname(fileURLToPath(import.meta.url)), '../../deploy/grafana')
const dashboard = JSON.parse(readFileSync(join(grafana, 'dashboards/sieve-quality.json'), 'utf8'))

/**
 * Grafana's macros and variables as the ClickHouse plugin expands them, for a run on the engine.
 * Variables are only ever inserted as `${name:sqlstring}`: quoted and escaped, so a value a link
 * sets is a string, never SQL.
 */
function expand(sql: string): string {
  return sql
    .replace(/\$__timeFilter\((\w+)\)/g, '$1 >= now() - INTERVAL 1 DAY AND $1 <= now()')
    .replaceAll('$__interval_s', '300')
    .replaceAll('${project:sqlstring}', "'default'")
    .replaceAll('${check:sqlstring}', "'tool_policy'")
    .replaceAll('${environment:sqlstring}', `'${environment.replaceAll("'", "''")}'`)
}

test('the dashboard inserts every variable quoted and escaped (sqlstring), never as it comes', () => {
  const sql = [
    ...dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.rawSql ?? '')),
    ...dashboard.templating.list.map((v: any) => (v.type === 'query' ? v.query : '')),
  ]
  const raw = sql.flatMap((q: string) => q.match(/\$\{\w+(:\w+)?\}/g) ?? []).filter((v: string) => !v.endsWith(':sqlstring}'))
  assert.deepEqual([...new Set(raw)], [])
})

/** The Traffic variable's options (custom: `text : value`), the default first. */
const trafficOptions: [string, string][] = dashboard.templating.list
  .find((v: any) => v.name === 'environment')
  .query.split(',')
  .map((option: string) => option.split(' : ') as [string, string])
let environment = ''

let client: Storage
before(async () => {
  client = await openEngine()
  const start = new Date(Date.now() - 3_600_000)
  await seed(client, [
    {
      traceId: traceId(1),
      start,
      agentVersion: 'v1',
      scores: [
        { name: 'tool_policy', value: 0, passed: false },
        { name: 'accuracy', kind: 'judge', value: 0.5, passed: false },
      ],
    },
    {
      traceId: traceId(2),
      start,
      agentVersion: 'v2',
      scores: [
        { name: 'tool_policy', value: 1, passed: true },
        { name: 'scorecard', kind: 'scorecard', value: 1, passed: true },
      ],
    },
    { traceId: traceId(3), start, agentVersion: 'v2', environment: 'simulation', scores: [{ name: 'tool_policy', value: 0, passed: false }] },
  ])
  // Calibration as the review queues record it: an earlier figure and the one in effect.
  const calibration = (minutesAgo: number, kappa: number, inEffect: number) => ({
    project_id: 'default',
    scorer_name: 'generic.accuracy',
    scorer_version: '1+prompt.3',
    judge_model: 'gpt-4o-2024-08-06',
    source: 'review',
    labels: 24,
    within_one: 0.9,
    weighted_kappa: kappa,
    human_pairs: 6,
    human_within_one: 0.95,
    human_weighted_kappa: 0.8,
    trusted: kappa >= 0.6 ? 1 : 0,
    in_effect: inEffect,
    detail: '{}',
    computed_at: new Date(Date.now() - minutesAgo * 60_000).toISOString().replace('T', ' ').replace('Z', ''),
  })
  await client.insert({ table: 'calibration_history', values: [calibration(50, 0.7, 0), calibration(10, 0.55, 1)], format: 'JSONEachRow' })
})
after(() => client.close())

test('every ClickHouse query of the Grafana dashboard runs on the migrated tables and returns rows', async () => {
  environment = trafficOptions[0]![1]
  const targets = dashboard.panels.flatMap((p: any) =>
    (p.targets ?? []).filter((t: any) => t.datasource.uid === 'sieve-clickhouse').map((t: any) => [p.title, t.rawSql]),
  )
  const variables = dashboard.templating.list.filter((v: any) => v.type === 'query').map((v: any) => [`variable ${v.name}`, v.query])
  assert.ok(targets.length >= 10)
  for (const [title, sql] of [...targets, ...variables]) {
    const rows = await (await client.query({ query: expand(sql), format: 'JSONEachRow' })).json()
    assert.ok(rows.length > 0, `${title}: no rows on seeded data`)
  }
})

test('the Grafana provisioning points the dashboard panels at the provisioned data sources', () => {
  const sources = parseYaml(readFileSync(join(grafana, 'provisioning/datasources/sieve.yaml'), 'utf8')).datasources
  const uids = new Set(sources.map((s: any) => s.uid))
  for (const panel of dashboard.panels.filter((p: any) => p.type !== 'row')) {
    assert.ok(uids.has(panel.datasource.uid), `${panel.title} uses an unknown data source`)
  }
  assert.deepEqual(sources.map((s: any) => s.type).sort(), ['grafana-clickhouse-datasource', 'prometheus'])
})

test('the Traffic variable leaves simulations out by default, and shows them alone or with the rest', async () => {
  const failing = dashboard.panels.flatMap((p: any) => p.targets ?? []).find((t: any) => /FROM trace_quality/.test(t.rawSql)).rawSql
  const listed = async (value: string) => {
    environment = value
    return (await (await client.query({ query: expand(failing), format: 'JSONEachRow' })).json<{ trace_id: string }>()).map((r) => r.trace_id).sort()
  }
  assert.deepEqual(
    trafficOptions.map(([text]) => text),
    ['all but simulations', 'simulations', 'every environment'],
  )
  assert.equal(dashboard.templating.list.find((v: any) => v.name === 'environment').current.value, trafficOptions[0]![1])
  assert.deepEqual(await listed(trafficOptions[0]![1]), [traceId(1)])
  assert.deepEqual(await listed(trafficOptions[1]![1]), [traceId(3)])
  assert.deepEqual(await listed(trafficOptions[2]![1]), [traceId(1), traceId(3)])
  // A value from a crafted link is compared as a string (Grafana's sqlstring format), never run.
  assert.deepEqual(await listed("simulation' OR '1'='1"), [])
})

test("the calibration panels show the judge's agreement over time and the dimension untrusted now", async () => {
  const panel = (title: string) => dashboard.panels.find((p: any) => p.title === title).targets[0].rawSql
  const inEffect = await (await client.query({ query: expand(panel('Calibration in effect')), format: 'JSONEachRow' })).json<Record<string, unknown>>()
  assert.deepEqual(
    inEffect.map((r) => [r.dimension, r.kappa, r.trust]),
    [['generic.accuracy', 0.55, 'untrusted']],
  )
  const history = await (await client.query({ query: expand(panel('Judge agreement with people per dimension (weighted κ)')), format: 'JSONEachRow' })).json<{
    judge_kappa: number
  }>()
  assert.deepEqual(
    history.map((r) => r.judge_kappa),
    [0.7, 0.55],
  )
  const alert = dashboard.panels.find((p: any) => p.title === 'Untrusted judge dimensions').targets[0].expr
  assert.match(alert, /sieve_judge_dimension_trusted/)
})
