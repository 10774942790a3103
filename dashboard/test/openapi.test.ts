import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { test } from 'node:test'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import { createApp } from '@sieve/collector'
import { listen } from '@sieve/http'
import type { Router } from 'express'
import { allowedMethods, createDashboardApi, createDashboardApp, createUi, traceDetails, UI_PATH } from '../src/index.js'
import { openApiDocument } from '../src/openapi.js'

/*
 * The OpenAPI document describes every route a Sieve server serves, and only those: it is built
 * from the zod schemas the routes validate with, and the committed copy is the one served.
 */

const storage = {} as Storage
const keys = new Map([['k', 'default']])

interface Layer {
  rawPath?: string
  route?: { path: string; methods: Record<string, boolean> }
  handle: { stack?: Layer[] }
}

/** `METHOD /path` of every route of an express app or router, mount paths included, `:id` as `{id}`. */
function routesOf(stack: Layer[], prefix = ''): string[] {
  return stack.flatMap((layer) => {
    const at = `${prefix}${layer.rawPath && layer.rawPath !== '/' ? layer.rawPath : ''}`
    if (layer.route) return Object.keys(layer.route.methods).map((m) => `${m.toUpperCase()} ${prefix}${layer.route!.path.replace(/:(\w+)/g, '{$1}')}`)
    return layer.handle.stack ? routesOf(layer.handle.stack, at) : []
  })
}

const documented = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((m) => `${m.toUpperCase()} ${path}`))

/** The apps `sieve up` (the collector's, the dashboard's routers mounted as cli/src/parts.ts does) and `sieve dashboard` serve. */
const apps = () => ({
  up: createApp({
    queue: new InProcessQueue(),
    storage,
    apiKeys: keys,
    maxBodyBytes: 1024,
    metrics: createPipelineMetrics(),
    traceDetails: traceDetails(storage),
    allowedMethods,
    routes: [
      { path: '/api', handler: createDashboardApi({ client: storage, apiKeys: keys }) },
      { path: UI_PATH, handler: createUi() },
    ],
  }),
  dashboard: createDashboardApp({ client: storage, apiKeys: keys }),
})
const routesOfApp = (app: unknown): string[] => routesOf((app as { router: Router & { stack: Layer[] } }).router.stack)

test('every route of `sieve up` and of `sieve dashboard` is in the document, and every documented route is served by one of them', () => {
  const served = new Set(Object.values(apps()).flatMap(routesOfApp))
  // The UI's static files and the dashboard role's redirect at / are not API.
  const api = [...served].filter((r) => !r.includes(UI_PATH) && r !== 'GET /')
  const doc = documented(openApiDocument() as { paths: Record<string, Record<string, unknown>> })
  assert.deepEqual(api.filter((r) => !doc.includes(r)).sort(), [], 'served but not documented')
  assert.deepEqual(doc.filter((r) => !served.has(r)).sort(), [], 'documented but served by neither')
})

test("each route is defined once: no router shadows another one's path", () => {
  for (const [role, app] of Object.entries(apps())) {
    const routes = routesOfApp(app)
    assert.deepEqual(
      routes.filter((r, i) => routes.indexOf(r) !== i),
      [],
      `sieve ${role} defines these more than once`,
    )
  }
})

test("query parameters and bodies come from the routes' own schemas", () => {
  const doc = openApiDocument() as any
  const quality = doc.paths['/api/quality'].get.parameters
  assert.deepEqual(quality.find((p: any) => p.name === 'interval').schema.enum, ['5m', '15m', '1h', '6h', '1d', '7d'])
  assert.ok(quality.every((p: any) => p.in === 'query' && p.required === false))
  const feedback = doc.paths['/v1/feedback'].post.requestBody.content['application/json'].schema
  assert.deepEqual(feedback.required.sort(), ['score', 'traceId'])
  assert.equal(doc.paths['/api/traces/{traceId}'].get.parameters[0].schema.pattern, '^[0-9a-fA-F]{32}$')
  assert.deepEqual(doc.paths['/healthz'].get.security, [], 'open routes need no key')
})

test('the committed dashboard/openapi.json is the document served at /api/openapi.json, without an API key', async () => {
  const committed = JSON.parse(readFileSync(new URL('../openapi.json', import.meta.url), 'utf8'))
  assert.deepEqual(committed, openApiDocument(), 'run `npm run openapi` and commit dashboard/openapi.json')
  const server = await listen(createDashboardApp({ client: storage, apiKeys: keys }), '127.0.0.1', 0)
  try {
    const res = await fetch(`${server.url}/api/openapi.json`)
    assert.equal(res.status, 200)
    assert.deepEqual(await res.json(), committed)
    assert.equal((await fetch(`${server.url}/api/status`)).status, 401, 'the rest of /api still asks for a key')
  } finally {
    await server.stop()
  }
})

test("the served document lints clean under @redocly/cli's recommended rules", { timeout: 60_000 }, async () => {
  // The committed copy, which the test above holds equal to the served one; redocly.yaml and the
  // ignore file beside it say what is left out and why.
  const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js')
  const { stdout } = await promisify(execFile)(process.execPath, [cli, 'lint', 'openapi.json', '--format=json'], {
    cwd: fileURLToPath(new URL('..', import.meta.url)),
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  })
  const { totals, problems } = JSON.parse(stdout) as { totals: Record<string, number>; problems: { ruleId: string; message: string }[] }
  assert.deepEqual(
    problems.map((p) => `${p.ruleId}: ${p.message}`),
    [],
  )
  assert.deepEqual(totals, { errors: 0, warnings: 0, ignored: 3 }, 'only the three operations without input go without a 4xx')
})

test('a served path asked in another method is a 405 with the methods in Allow; an unknown path stays a 404', async () => {
  const { up, dashboard } = apps()
  const servers = { up: await listen(up, '127.0.0.1', 0), dashboard: await listen(dashboard, '127.0.0.1', 0) }
  try {
    const ask = async (role: keyof typeof servers, method: string, path: string) => {
      const res = await fetch(`${servers[role].url}${path}`, { method, headers: { authorization: 'Bearer k' } })
      return { status: res.status, allow: res.headers.get('allow'), body: method === 'HEAD' ? '' : await res.text() }
    }
    const traces = await ask('up', 'DELETE', '/v1/traces')
    assert.deepEqual([traces.status, traces.allow], [405, 'POST'])
    assert.match(traces.body, /"code":"METHOD_NOT_ALLOWED".*DELETE \/v1\/traces is not served; it takes POST/)
    assert.deepEqual([(await ask('up', 'HEAD', '/v1/traces')).status, (await ask('up', 'PATCH', '/healthz')).allow], [405, 'GET, HEAD'])
    assert.deepEqual(await ask('up', 'PUT', `/api/traces/${'ab'.repeat(16)}/quality`).then((r) => [r.status, r.allow]), [405, 'GET, HEAD'])
    assert.equal((await ask('up', 'POST', '/api/nothing-here')).status, 404)
    // The dashboard role serves neither ingest nor /metrics: there they are unknown paths.
    assert.equal((await ask('dashboard', 'DELETE', '/v1/traces')).status, 404)
    assert.deepEqual(await ask('dashboard', 'DELETE', '/api/quality').then((r) => [r.status, r.allow]), [405, 'GET, HEAD'])
  } finally {
    await servers.up.stop()
    await servers.dashboard.stop()
  }
})

test('allowedMethods reads path templates one segment a parameter, the rest literally', () => {
  assert.deepEqual(allowedMethods('/api/openapi.json'), ['GET', 'HEAD'])
  assert.equal(allowedMethods('/api/openapiXjson'), undefined)
  assert.deepEqual(allowedMethods('/api/sessions/s-1'), ['GET', 'HEAD'])
  assert.equal(allowedMethods('/api/sessions/a/b'), undefined)
  assert.deepEqual(allowedMethods('/api/export'), ['POST'])
})
