// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Storage, Span } from '@sieve/core'
import type { InProcessQueue } from '@sieve/queue'
import type { RunningServer } from '@sieve/http'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

let storage: Storage
let queue: InProcessQueue
let server: RunningServer
let ingester: RunningSieve['ingester']
let stop: () => Promise<void>
const keys = new Map([
  ['key-one', 'p1'],
  ['key-two', 'p2'],
])
const NOW = BigInt(Date.now()) * 1_000_000n

function span(projectId: string, traceId: string, spanId: string, parentSpanId: string, offsetNs: bigint, extra: Partial<Span> = {}): Span {
  return {
    projectId,
    traceId,
    spanId,
    parentSpanId,
    traceState: '',
    name: parentSpanId ? 'chat gpt-4o' : 'invoke_agent support',
    kind: parentSpanId ? 'CLIENT' : 'INTERNAL',
    startTimeUnixNano: (NOW + offsetNs).toString(),
    endTimeUnixNano: (NOW + offsetNs + 1_000_001n).toString(),
    status: { code: 'UNSET', message: '' },
    flags: 1,
    serviceName: 'support-agent',
    scope: { name: 'test', version: '1', attributes: {} },
    attributes: parentSpanId
      ? { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 7 }
      : { 'gen_ai.agent.name': 'support' },
    resource: { 'service.name': 'support-agent' },
    events: parentSpanId
      ? [{ timeUnixNano: (NOW + offsetNs + 5n).toString(), name: 'gen_ai.choice', attributes: { index: 0 }, droppedAttributesCount: 0 }]
      : [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...extra,
  }
}

const T1 = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1'
const T2 = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb2'
const trace1 = [
  span('p1', T1, '1000000000000001', '', 0n),
  span('p1', T1, '1000000000000002', '1000000000000001', 10n),
  span('p1', T1, '1000000000000003', '1000000000000002', 20n),
  span('p1', T1, '1000000000000004', '1000000000000001', 30n),
]
const trace2 = [span('p2', T2, '2000000000000001', '', 0n, { serviceName: 'other-service' })]

async function get(path: string, key?: string): Promise<{ status: number; body: any }> {
  const res = await fetch(`${server.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} })
  return { status: res.status, body: await res.json() }
}

before(async () => {
  ;({ storage, queue, ingester, server, stop } = await startSieve({ apiKeys: keys, maxBodyBytes: 4 << 20 }))
  await queue.publish([...trace1, ...trace2])
  await ingester.flush()
})

after(() => stop())

describe('read API', () => {
  test('a trace comes back as a span tree with attributes and events', async () => {
    const { status, body } = await get(`/api/traces/${T1.toUpperCase()}`, 'key-one')
    assert.equal(status, 200)
    const tree = body.trace
    assert.equal(tree.traceId, T1)
    assert.equal(tree.spanCount, 4)
    assert.equal(tree.roots.length, 1)
    const root = tree.roots[0]
    assert.equal(root.spanId, '1000000000000001')
    assert.deepEqual(
      root.children.map((c: Span) => c.spanId),
      ['1000000000000002', '1000000000000004'],
    )
    const llm = root.children[0]
    assert.deepEqual(
      llm.children.map((c: Span) => c.spanId),
      ['1000000000000003'],
    )
    assert.equal(llm.attributes['gen_ai.usage.input_tokens'], 7)
    assert.equal(llm.events[0].name, 'gen_ai.choice')
    assert.equal(llm.startTimeUnixNano, (NOW + 10n).toString())
  })

  test("the list shows the project's traces from the rollup, newest first", async () => {
    const { status, body } = await get('/api/traces', 'key-one')
    assert.equal(status, 200)
    assert.deepEqual(
      body.traces.map((t: { traceId: string }) => t.traceId),
      [T1],
    )
    assert.equal(body.traces[0].spanCount, 4)
    assert.equal(body.traces[0].llmCallCount, 3)
    assert.equal(body.traces[0].inputTokens, 21)
  })

  test('a key sees only its own project', async () => {
    assert.equal((await get(`/api/traces/${T1}`, 'key-two')).status, 404)
    assert.deepEqual(
      (await get('/api/traces', 'key-two')).body.traces.map((t: { traceId: string }) => t.traceId),
      [T2],
    )
    assert.deepEqual((await get('/api/traces?service=support-agent', 'key-two')).body.traces, [])
  })

  test('a missing or unknown key gets 401', async () => {
    const missing = await get('/api/traces')
    assert.equal(missing.status, 401)
    assert.match(missing.body.error.message, /missing API key/)
    assert.equal((await get(`/api/traces/${T1}`, 'nope')).status, 401)
    const res = await fetch(`${server.url}/api/traces`, { headers: { 'x-api-key': 'key-one' } })
    assert.equal(res.status, 200)
  })

  test('bad query parameters get 400 naming the parameter', async () => {
    for (const [query, name] of [
      ['limit=0', 'limit'],
      ['limit=abc', 'limit'],
      ['since=yesterday', 'since'],
    ] as const) {
      const { status, body } = await get(`/api/traces?${query}`, 'key-one')
      assert.equal(status, 400, query)
      assert.match(body.error.message, new RegExp(`^${name}: `), query)
    }
    // Worded as the dashboard's API words it: one formatter for every route's parameters.
    const unknown = await get('/api/traces?colour=red', 'key-one')
    assert.equal(unknown.status, 400)
    assert.equal(unknown.body.error.message, "unknown parameter 'colour'")
    const bad = await get('/api/traces/not-a-trace-id', 'key-one')
    assert.equal(bad.status, 400)
    assert.match(bad.body.error.message, /^traceId: /)
  })

  test('since filters by trace start', async () => {
    const later = new Date(Number((NOW + 10_000_000_000n) / 1_000_000n)).toISOString()
    assert.deepEqual((await get(`/api/traces?since=${later}`, 'key-one')).body.traces, [])
    assert.equal((await get(`/api/traces?since=${NOW - 1n}`, 'key-one')).body.traces.length, 1)
  })

  test('spans delivered again are stored and counted once', async () => {
    await queue.publish([trace1[1]!, trace1[2]!])
    await queue.publish(trace1)
    await ingester.flush()
    const { body } = await get(`/api/traces/${T1}`, 'key-one')
    assert.equal(body.trace.spanCount, 4)
    const list = await get('/api/traces', 'key-one')
    assert.equal(list.body.traces.length, 1)
    assert.equal(list.body.traces[0].spanCount, 4)
    const count = await (await storage.query({ query: `SELECT count() AS n FROM spans FINAL WHERE trace_id = '${T1}'`, format: 'JSONEachRow' })).json<{
      n: string
    }>()
    assert.equal(Number(count[0]!.n), 4)
  })

  test('health, readiness and metrics answer', async () => {
    assert.equal((await get('/healthz')).status, 200)
    assert.deepEqual(await get('/readyz'), { status: 200, body: { status: 'ready' } })
    const metrics = await (await fetch(`${server.url}/metrics`)).text()
    assert.match(metrics, /sieve_insert_rows_total\{table="spans"\} \d+/)
    assert.match(metrics, /sieve_queue_depth_spans 0/)
    assert.match(metrics, /sieve_queue_bytes 0/)
  })
})
