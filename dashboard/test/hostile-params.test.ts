import { after, before, describe, test } from 'node:test'
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import type { Storage } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import { createApp } from '@sieve/collector'
import type { Express } from 'express'
import { createDashboardApi, createDashboardApp, createUi, UI_PATH } from '../src/index.js'
import { openEngine } from './support/engine.js'
import { seed, traceId } from './support/seed.js'

/*
 * Every query and path parameter of every read route, and the bodies of the review queue's writes,
 * fed hostile values, through both apps that serve them: `sieve up`'s (the collector's app with the
 * dashboard mounted) and `sieve dashboard`'s. None may give a 5xx; a refusal is a 400 that names the
 * parameter.
 */

type Kind = 'time' | 'count' | 'choice' | 'text'
const ROUTES: { path: string; base: string; params: Record<string, Kind> }[] = [
  {
    path: '/api/quality',
    base: '',
    params: {
      from: 'time',
      to: 'time',
      interval: 'choice',
      groupBy: 'choice',
      kind: 'choice',
      check: 'text',
      service: 'text',
      agent_version: 'text',
      prompt_version: 'text',
      model: 'text',
    },
  },
  {
    path: '/api/worst',
    base: '',
    params: {
      from: 'time',
      to: 'time',
      sort: 'choice',
      check: 'text',
      limit: 'count',
      service: 'text',
      agent_version: 'text',
      prompt_version: 'text',
      model: 'text',
    },
  },
  { path: '/api/compare', base: 'a=v1&b=v2', params: { a: 'text', b: 'text', by: 'choice', from: 'time', to: 'time', service: 'text' } },
  { path: '/api/scorecard', base: '', params: { from: 'time', to: 'time', service: 'text', agent_version: 'text', prompt_version: 'text', model: 'text' } },
  // The collector's read API (GET /api/traces lists traces; the dashboard has no route of that path).
  { path: '/api/traces', base: '', params: { since: 'time', service: 'text', limit: 'count' } },
  // The review queue: rubric ids are loaded rubrics, trace ids 32 hex digits (no hostile value is either).
  { path: '/api/review/queues', base: '', params: { reviewer: 'text' } },
  { path: '/api/review/next', base: 'rubric=generic&reviewer=ana', params: { rubric: 'choice', reviewer: 'text', traceId: 'choice' } },
  { path: '/api/review/rules', base: 'rubric=generic', params: { rubric: 'choice' } },
  { path: '/api/review/calibration', base: 'rubric=generic', params: { rubric: 'choice', points: 'count' } },
  { path: '/api/review/labels.jsonl', base: '', params: { rubric: 'choice' } },
]

/** Values as they stand in the query string (already percent-encoded where needed). */
const HOSTILE = [
  '99999999999999999999999',
  '9'.repeat(400),
  '-1',
  '-99999999999999999999',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '1e21',
  '1.5',
  '0x10',
  '',
  '%20',
  '%20%205',
  'x'.repeat(5000),
  '%00',
  '%0A',
  '%5C',
  '%27',
  '%22',
  '%ED%A0%80',
  '%',
  '%E0%A4%A',
  '%7B%7Bx%7D%7D',
  '__proto__',
  '2100-01-01T00:00:00.001Z',
  '2262-04-12T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '2026-13-45',
  'Nov%2020%202026',
  'foo%2012',
]
/** Hostile values a text parameter may legitimately hold: a service may be called `\` or `'`. */
const TEXT_OK = [
  '99999999999999999999999',
  '9'.repeat(400),
  '-1',
  '-99999999999999999999',
  'NaN',
  'Infinity',
  '-Infinity',
  '1e400',
  '1e21',
  '1.5',
  '0x10',
  '%20',
  '%20%205',
  '%0A',
  '%5C',
  '%27',
  '%22',
  '%ED%A0%80',
  '%',
  '%E0%A4%A',
  '%7B%7Bx%7D%7D',
  '__proto__',
  '2100-01-01T00:00:00.001Z',
  '2262-04-12T00:00:00Z',
  '9999-12-31T23:59:59Z',
  '0000-01-01T00:00:00Z',
  '1969-12-31T23:59:59Z',
  '+275760-09-13T00:00:00Z',
  '2026-13-45',
  'Nov%2020%202026',
  'foo%2012',
  '%00',
]
/** Which of them each kind of parameter takes; everything else must be refused. */
const ACCEPTED: Record<Kind, Set<string>> = {
  text: new Set(TEXT_OK),
  time: new Set(['%20%205']), // Unix millisecond 5, spaces around it trimmed
  count: new Set(),
  choice: new Set(),
}
/** The parameter given twice, and shapes of a name that other query parsers read as arrays or objects. */
const REPEATED = (name: string) => [`${name}=1&${name}=2`, `${name}=2026-11-20T10:00:00Z&${name}=2026-11-20T11:00:00Z`, `${name}%5B%5D=1`, `${name}%5Ba%5D=1`]

const PATHS = ['/api/traces/%s', '/api/traces/%s/quality', '/api/sessions/%s']
const PATH_VALUES = [
  '%',
  '%E0%A4%A',
  '%00',
  '%0A',
  'x'.repeat(5000),
  '..',
  '%2E%2E',
  '%2F',
  '%5C',
  '%27',
  '%ED%A0%80',
  '99999999999999999999999',
  'NaN',
  '-1',
  traceId(1, 'a').toUpperCase(),
]

/** Review bodies: none a valid label, skip, undo, add or rules save (those answer 404 for a trace not queued, or 201). */
const label = (change: Record<string, unknown>) =>
  JSON.stringify({ rubric: 'generic', traceId: traceId(1, 'a'), reviewer: 'ana', labels: { groundedness: 2 }, ...change })
const REVIEW_BODIES = [
  '{',
  '[]',
  'null',
  '1e400',
  '{"rubric": "generic"}',
  label({ labels: { groundedness: 1e400 } }),
  label({ labels: { groundedness: '2' } }),
  label({ labels: { groundedness: 0 } }),
  label({ labels: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`d${i}`, 1])) }),
  label({ labels: { ['x'.repeat(65)]: 1 } }),
  label({ note: 'x'.repeat(2001) }),
  label({ reviewer: 'x'.repeat(65) }),
  label({ reviewer: ' ' }),
  label({ reviewer: '\u0000' }),
  label({ rubric: '__proto__' }),
  label({ rubric: 'x'.repeat(65) }),
  label({ traceId: 'x' }),
  label({ extra: 1 }),
  label({ rules: { randomShare: 2 } }),
  `"${'x'.repeat(70_000)}"`,
]
const REVIEW_POSTS = ['/api/review/labels', '/api/review/skip', '/api/review/undo', '/api/review/queue', '/api/review/rules']

const BODIES = [
  '{',
  '[]',
  'null',
  '1e400',
  '{"traceIds": 1e400}',
  '{"traceIds": ["x"]}',
  '{"traceIds": []}',
  '{"traceIds": {"0": "a"}}',
  `{"traceIds": ["${traceId(1, 'a')}"], "note": "${'x'.repeat(3000)}"}`,
  `{"traceIds": ${JSON.stringify(Array(1001).fill(traceId(1, 'a')))}}`,
  `{"traceIds": ["${traceId(1, 'a')}"], "extra": 1}`,
  `"${'x'.repeat(1_100_000)}"`,
]

let client: Storage
const servers: { name: string; base: string; close(): Promise<void> }[] = []

async function serve(name: string, app: Express) {
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  servers.push({
    name,
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  })
}

before(async () => {
  client = await openEngine()
  const start = new Date(Date.now() - 3_600_000)
  await seed(client, [{ traceId: traceId(1, 'a'), start, agentVersion: 'v1', scores: [{ name: 'tool_policy', value: 0, passed: false }] }])
  const apiKeys = new Map<string, string>()
  const log = (message: string) => assert.fail(`an error reached the log: ${message}`)
  await serve(
    'sieve up',
    createApp({
      queue: new InProcessQueue(),
      storage: client,
      metrics: createPipelineMetrics(),
      apiKeys,
      maxBodyBytes: 1 << 20,
      log,
      routes: [
        { path: '/api', handler: createDashboardApi({ client, apiKeys }) },
        { path: UI_PATH, handler: createUi() },
      ],
    }),
  )
  await serve('sieve dashboard', createDashboardApp({ client, apiKeys }))
})
after(async () => {
  await Promise.all(servers.map((s) => s.close()))
  await client.close()
})

async function call(base: string, path: string, init?: RequestInit): Promise<{ status: number; message: string }> {
  const res = await fetch(base + path, init)
  const text = await res.text()
  let message = text
  try {
    message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? ''
  } catch {
    assert.fail(`${path}: answered ${res.status} with a body that is not JSON: ${text.slice(0, 200)}`)
  }
  return { status: res.status, message }
}

describe('hostile parameters never give a server error', () => {
  test('query parameters: a value out of range or of the wrong shape is a 400 naming the parameter', async () => {
    for (const { name, base } of servers) {
      for (const route of ROUTES) {
        for (const [param, kind] of Object.entries(route.params)) {
          const queries = [...HOSTILE.map((v) => `${param}=${v}`), ...REPEATED(param)]
          for (const query of queries) {
            const url = `${route.path}?${[route.base, query].filter(Boolean).join('&')}`
            const { status, message } = await call(base, url)
            const where = `${name}: GET ${url.slice(0, 120)} → ${status} ${message.slice(0, 160)}`
            assert.ok(status === 200 || status === 400, where)
            const value = query.slice(param.length + 1)
            const mayPass = ACCEPTED[kind].has(value) && query.startsWith(`${param}=`)
            if (!mayPass) assert.equal(status, 400, where)
            if (status === 400) assert.ok(message.includes(param), `${where}: the message names ${param}`)
          }
        }
      }
    }
  })

  test('a time beyond 2100 or before 1970 names the range; one within it is served', async () => {
    for (const { base } of servers) {
      const late = await call(base, '/api/quality?to=99999999999999999999999')
      assert.equal(late.status, 400)
      assert.match(late.message, /^to: .*out of range; times lie between 1970-01-01T00:00:00Z and 2100-01-01T00:00:00Z/)
      assert.match((await call(base, '/api/traces?since=9223372036854775808')).message, /^since: .*out of range/)
      assert.equal((await call(base, '/api/worst?limit=0x10')).status, 400)
      assert.equal((await call(base, `/api/quality?to=${Date.now()}`)).status, 200)
      assert.equal((await call(base, '/api/traces?since=0&limit=5')).status, 200)
    }
  })

  test('path parameters: malformed, overlong or hostile ids are a 400 or a 404', async () => {
    for (const { name, base } of servers) {
      for (const template of PATHS) {
        for (const value of PATH_VALUES) {
          const url = template.replace('%s', value)
          const { status, message } = await call(base, url)
          assert.ok([200, 400, 404].includes(status), `${name}: GET ${url.slice(0, 120)} → ${status} ${message.slice(0, 160)}`)
        }
      }
    }
  })

  test('review bodies that are not JSON, too large or of the wrong shape are a 400 or a 413', async () => {
    for (const { name, base } of servers) {
      for (const path of REVIEW_POSTS) {
        for (const body of REVIEW_BODIES) {
          const { status, message } = await call(base, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
          assert.ok(status === 400 || status === 413, `${name}: POST ${path} ${body.slice(0, 80)} → ${status} ${message.slice(0, 160)}`)
        }
      }
    }
  })

  test('export bodies that are not JSON, too large or of the wrong shape are a 400 or a 413', async () => {
    for (const { name, base } of servers) {
      for (const body of BODIES) {
        const { status, message } = await call(base, '/api/export', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        assert.ok(status === 400 || status === 413, `${name}: POST /api/export ${body.slice(0, 80)} → ${status} ${message.slice(0, 160)}`)
      }
    }
  })
})
