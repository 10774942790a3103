// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { insertSpans, migrate, readSession, traceSessionId, type Span } from '@sieve/core'

// Recent times: rows older than the retention are dropped by the TTL at the next merge.
const NOW = BigInt(Date.now()) * 1_000_000n
const dir = mkdtempSync(join(tmpdir(), 'sieve-session-'))
let store: TestStorage
let client: Storage

const id = (n: number, width: number) => n.toString(16).padStart(width, '0')

function span(
  projectId: string,
  trace: number,
  spanId: number,
  parent: number,
  offsetMs: number,
  attributes: Span['attributes'] = {},
  resource: Span['resource'] = {},
): Span {
  const start = NOW + BigInt(offsetMs) * 1_000_000n
  return {
    projectId,
    traceId: id(trace, 32),
    spanId: id(spanId, 16),
    parentSpanId: parent ? id(parent, 16) : '',
    traceState: '',
    name: parent ? 'chat gpt-4o' : 'invoke_agent support',
    kind: 'INTERNAL',
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 1_000_000n),
    status: { code: 'UNSET', message: '' },
    flags: 0,
    serviceName: 'support',
    scope: { name: 'test', version: '1', attributes: {} },
    attributes,
    resource,
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

/** A trace of the session: the agent span names it, its model call does not. */
const turn = (projectId: string, trace: number, offsetMs: number, session: string): Span[] => [
  span(projectId, trace, trace * 16 + 1, 0, offsetMs, { 'gen_ai.conversation.id': session }),
  span(projectId, trace, trace * 16 + 2, trace * 16 + 1, offsetMs + 1),
]

before(async () => {
  store = await openTestStorage({ path: join(dir, 'clickhouse'), database: 'sieve_session' })
  client = store.storage
  await migrate(client, { retentionDays: 30 })
  await insertSpans(client, [
    ...turn('p1', 3, 3000, 's-1'),
    ...turn('p1', 1, 1000, 's-1'),
    ...turn('p1', 2, 2000, 's-1'),
    ...turn('p1', 4, 1500, 's-2'),
    ...turn('p2', 5, 500, 's-1'),
    // session.id as a resource attribute names the session of every span of the trace.
    span('p1', 6, 97, 0, 4000, {}, { 'session.id': 's-3' }),
  ])
})
after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

test('a session is its traces in start order, each with all its spans, in its project only', async () => {
  const traces = await readSession(client, 'p1', 's-1')
  assert.deepEqual(
    traces.map((t) => t.traceId),
    [1, 2, 3].map((n) => id(n, 32)),
  )
  assert.ok(traces.every((t) => t.complete && t.projectId === 'p1'))
  assert.deepEqual(
    traces[0]!.spans.map((s) => s.spanId),
    [id(17, 16), id(18, 16)],
    'the model call without the session id comes with its trace',
  )
  assert.deepEqual(
    (await readSession(client, 'p2', 's-1')).map((t) => t.traceId),
    [id(5, 32)],
  )
  assert.deepEqual(
    (await readSession(client, 'p1', 's-3')).map((t) => t.traceId),
    [id(6, 32)],
  )
  assert.deepEqual(await readSession(client, 'p1', 's-9'), [])
  assert.deepEqual(await readSession(client, 'p1', ''), [], 'spans without a session are no session')
})

test('over the limit, the newest traces are kept', async () => {
  const traces = await readSession(client, 'p1', 's-1', 2)
  assert.deepEqual(
    traces.map((t) => t.traceId),
    [2, 3].map((n) => id(n, 32)),
  )
})

test("a trace's session: the root span's, else the earliest span naming one", () => {
  const root = turn('p1', 7, 0, 's-root')
  assert.equal(traceSessionId({ projectId: 'p1', traceId: id(7, 32), spans: root, complete: true }), 's-root')
  const childOnly = [span('p1', 8, 1, 0, 0), span('p1', 8, 3, 1, 2, { 'session.id': 'late' }), span('p1', 8, 2, 1, 1, { 'gen_ai.conversation.id': 'early' })]
  assert.equal(traceSessionId({ projectId: 'p1', traceId: id(8, 32), spans: childOnly, complete: true }), 'early')
  assert.equal(traceSessionId({ projectId: 'p1', traceId: id(9, 32), spans: [span('p1', 9, 1, 0, 0)], complete: true }), '')
})
