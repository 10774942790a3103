// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { until } from '@sieve/testkit'
import { openTestStorage, testStorageKind, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { NODE_THREAD_NAMES, engineThreadScans, niceOf } from '../src/storage/engine-threads.js'
import { engineMemoryBytes, insertSpans, listTraces, loadMigrations, migrate, migrationsApplied, readTrace, refreshTraceRollups, type Span } from '@sieve/core'

// Recent times: rows older than the retention are dropped by the TTL at the next merge.
const NOW = BigInt(Date.now()) * 1_000_000n + 123_456_789n
const at = (offsetMs: number): string => (NOW + BigInt(offsetMs) * 1_000_000n).toString()

const dir = mkdtempSync(join(tmpdir(), 'sieve-storage-'))
let store: TestStorage
let client: Storage

function span(overrides: Partial<Span> = {}): Span {
  return {
    projectId: 'p1',
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: '',
    traceState: 'k=v',
    name: 'invoke_agent support',
    kind: 'SERVER',
    startTimeUnixNano: at(0),
    endTimeUnixNano: at(1864),
    status: { code: 'OK', message: '' },
    flags: 257,
    serviceName: 'support-agent',
    scope: { name: 'sieve-test', version: '1.0.0', attributes: { 'scope.flag': true } },
    attributes: {
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'support',
      'user.id': 'u-1',
      count: 3,
      ratio: 0.25,
      ok: false,
      nothing: null,
      list: ['a', 1, true],
      nested: { a: { b: [1, 2] } },
      text: 'it\'s\t"quoted"\n',
    },
    resource: { 'service.name': 'support-agent', 'service.version': '2.0.0', pid: 1234 },
    events: [{ timeUnixNano: at(377), name: 'gen_ai.choice', attributes: { index: 0 }, droppedAttributesCount: 1 }],
    links: [
      {
        traceId: '5b8efff798038103d269b633813fc60c',
        spanId: 'eee19b7ec3c1b174',
        traceState: '',
        attributes: { why: 'retry' },
        flags: 1,
        droppedAttributesCount: 0,
      },
    ],
    droppedAttributesCount: 2,
    droppedEventsCount: 3,
    droppedLinksCount: 4,
    ...overrides,
  }
}

const llmChild = (traceId: string, spanId: string, tokens: number, start: string): Span =>
  span({
    traceId,
    spanId,
    parentSpanId: 'b7ad6b7169203331',
    name: 'chat gpt-4o',
    kind: 'CLIENT',
    startTimeUnixNano: start,
    endTimeUnixNano: (BigInt(start) + 1000n).toString(),
    status: { code: 'ERROR', message: 'rate limited' },
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': tokens, 'gen_ai.usage.output_tokens': 1 },
    events: [],
    links: [],
  })

before(async () => {
  store = await openTestStorage({ path: join(dir, 'clickhouse'), database: 'sieve_test' })
  client = store.storage
})
after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('migrations', () => {
  test('apply every file once, record it, and do nothing the second time', async () => {
    const first = await migrate(client, { retentionDays: 30 })
    assert.deepEqual(
      first.applied,
      loadMigrations().map((m) => `${m.version}_${m.name}`),
    )
    const second = await migrate(client, { retentionDays: 30 })
    assert.deepEqual(second, { applied: [], retentionUpdated: [] })
    assert.equal(await migrationsApplied(client), true)
    const tables = await (
      await client.query({ query: 'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name', format: 'JSONEachRow' })
    ).json<{ name: string }>()
    assert.deepEqual(
      tables.map((t) => t.name),
      [
        'calibration_history',
        'dead_letters',
        'exports',
        'feedback',
        'insert_intents',
        'judge_budget',
        'progress',
        'quality_1h',
        'quality_1h_mv',
        'quality_5m',
        'quality_5m_mv',
        'review_queue',
        'review_rules',
        'review_skips',
        'schema_migrations',
        'score_changes',
        'score_changes_mv',
        'score_latest',
        'score_latest_mv',
        'scores',
        'span_log_events',
        'spans',
        'trace_quality',
        'trace_quality_mv',
        'traces',
      ],
    )
  })

  test('a changed retention rewrites the TTL of every table', async () => {
    const changed = await migrate(client, { retentionDays: 7 })
    assert.deepEqual(changed.retentionUpdated.sort(), [
      'calibration_history',
      'dead_letters',
      'feedback',
      'judge_budget',
      'quality_1h',
      'quality_5m',
      'review_queue',
      'review_skips',
      'score_latest',
      'scores',
      'span_log_events',
      'spans',
      'trace_quality',
      'traces',
    ])
    const engines = await (
      await client.query({ query: "SELECT engine_full FROM system.tables WHERE database = currentDatabase() AND name = 'spans'", format: 'JSONEachRow' })
    ).json<{ engine_full: string }>()
    assert.match(engines[0]!.engine_full, /toIntervalDay\(7\)/)
    assert.deepEqual((await migrate(client, { retentionDays: 7 })).retentionUpdated, [])
    await migrate(client, { retentionDays: 30 })
  })
})

describe('spans', () => {
  test('a span reads back field for field, nanoseconds and attribute types included', async () => {
    const root = span()
    await insertSpans(client, [root])
    const trace = await readTrace(client, 'p1', root.traceId)
    assert.ok(trace)
    assert.deepEqual(trace.spans, [root])
    assert.equal(trace.complete, true)
  })

  test('awkward strings in every text field and map read back byte for byte', async () => {
    const awkward = [
      `it's "quoted" and \\'escaped\\'`,
      'tab\there',
      'new\nline',
      'carriage\r\nreturn',
      'back\\slash\\',
      '\\N',
      '\\t literally',
      'nul\u0000byte',
      'bell\u0007 and del\u007f',
      "{'a':'b'}",
      '[1, "two"]',
      ',;:=',
      'ünïcödé — 日本語 — עברית — 🦀👩‍💻',
      '',
    ] as const
    const map = Object.fromEntries(awkward.map((s, i) => [`${s}#${i}`, s]))
    const huge = `${'x'.repeat(1_000_000)}\t"\n${'é'.repeat(100_000)}`
    const odd = span({
      traceId: '44444444444444444444444444444444',
      spanId: '4444444444444444',
      name: awkward.join(' | '),
      traceState: awkward[0],
      status: { code: 'ERROR', message: awkward.join('\n') },
      serviceName: awkward[12],
      scope: { name: awkward[1], version: awkward[2], attributes: map },
      attributes: { ...map, huge, 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': awkward[0], 'gen_ai.conversation.id': awkward[4] },
      resource: { ...map, 'service.name': awkward[12] },
      events: [{ timeUnixNano: at(1), name: awkward[3], attributes: map, droppedAttributesCount: 0 }],
      links: [],
    })
    await insertSpans(client, [odd])
    const trace = await readTrace(client, 'p1', odd.traceId)
    assert.deepEqual(trace?.spans, [odd])
    const [extracted] = await (
      await client.query({
        query: `SELECT request_model, session_id, service_name FROM spans WHERE trace_id = '${odd.traceId}'`,
        format: 'JSONEachRow',
      })
    ).json<{ request_model: string; session_id: string; service_name: string }>()
    assert.deepEqual(extracted, { request_model: awkward[0], session_id: awkward[4], service_name: awkward[12] })
  })

  test('many spans with text outside Latin-1 read back whole: the insert encodes its payload a piece at a time', async () => {
    const traceId = '66666666666666666666666666666666'
    const text = 'ünïcödé — 日本語 — 🦀👩‍💻 '.repeat(60)
    const spans = Array.from({ length: 300 }, (_, i) =>
      span({ traceId, spanId: i.toString(16).padStart(16, '0'), parentSpanId: i === 0 ? '' : '0'.repeat(16), attributes: { text: `${i} ${text}` } }),
    )
    await insertSpans(client, spans)
    const trace = await readTrace(client, 'p1', traceId)
    const bySpanId = (a: { spanId: string }, b: { spanId: string }) => a.spanId.localeCompare(b.spanId)
    assert.deepEqual([...(trace?.spans ?? [])].sort(bySpanId), [...spans].sort(bySpanId))
  })

  // Embedded, span inserts take a second connection to the engine (create-storage.ts); over HTTP every
  // statement is a request of its own on the client's pool of sockets, and the six seconds show nothing.
  const embeddedOnly = testStorageKind() === 'http' && "the embedded engine's second connection"
  test('a span insert does not queue behind a long statement on the client', { skip: embeddedOnly }, async () => {
    // Six seconds of sleeping on the client's connection; the insert needs milliseconds.
    let longStatementDone = false
    const long = client
      .command({ query: 'SELECT sum(sleepEachRow(1)) FROM numbers(6) SETTINGS max_block_size = 1, function_sleep_max_microseconds_per_block = 10000000' })
      .then(() => {
        longStatementDone = true
      })
    const root = span({ traceId: '55555555555555555555555555555555' })
    await insertSpans(client, [root])
    assert.equal(longStatementDone, false, 'the insert waited for the statement running on the client')
    await long
    assert.deepEqual((await readTrace(client, 'p1', root.traceId))?.spans, [root])
  })

  // ClickHouse's os_thread_priority acts only with CAP_SYS_NICE (root); Sieve lowers the engine's
  // threads itself, so this holds in the image and under Helm too (run it under `setpriv
  // --inh-caps=-sys_nice --bounding-set=-sys_nice` to see).
  test("the engine's threads run at nice 10, below the main thread, with or without CAP_SYS_NICE", { skip: embeddedOnly }, async () => {
    const threads = () =>
      readdirSync('/proc/self/task').map((tid) => ({
        tid: Number(tid),
        name: readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trimEnd(),
        nice: niceOf(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')),
      }))
    const [session] = await (await client.query({ query: "SELECT getSetting('os_thread_priority') AS nice", format: 'JSONEachRow' })).json<{ nice: number }>()
    assert.equal(Number(session?.nice), 10)
    await client.command({ query: 'SELECT sum(number) FROM numbers(1000000) SETTINGS max_threads = 2' })
    const main = threads().find((t) => t.tid === process.pid)!
    const engine = () => threads().filter((t) => t.name !== main.name && !NODE_THREAD_NAMES.has(t.name))
    // None left at the default 0; with CAP_SYS_NICE the engine raises a few itself (MemoryWorker at -20).
    // The statement brings a scan within a second (lowerEngineThreads).
    await until('every engine thread lowered', () => engine().every((t) => t.nice !== 0), 10_000).catch(() => {
      assert.fail(
        `engine threads: ${engine()
          .map((t) => `${t.name} ${t.nice}`)
          .join(', ')}`,
      )
    })
    assert.ok(engine().filter((t) => t.nice === 10).length > 0, 'the engine runs threads of its own, at nice 10')
    assert.equal(threads().find((t) => t.tid === process.pid)?.nice, 0, 'the main thread keeps its priority')
    // From Node 24 its threads have names of their own: V8's helpers and libuv's pool are not the engine's.
    const node = threads().filter((t) => NODE_THREAD_NAMES.has(t.name))
    assert.deepEqual(
      node.filter((t) => t.nice !== 0 && t.name !== 'libuv-worker' && t.name !== 'node'),
      [],
      "Node's own threads keep their priority",
    )
  })

  // Looking for the engine's threads was a fifth of an idle process's JavaScript (bench:idle).
  test("the engine's threads are looked for while it works, not while it is idle", { skip: embeddedOnly }, async () => {
    await client.command({ query: 'SELECT 1' })
    // Scans back off (1, 2, 4 s) after the last statement, then stop.
    let seen = engineThreadScans()
    await until(
      'the scans to stop',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 4500))
        const stopped = engineThreadScans() === seen
        seen = engineThreadScans()
        return stopped
      },
      20_000,
    )
    await new Promise((resolve) => setTimeout(resolve, 3000))
    assert.equal(engineThreadScans(), seen, 'no scan while no statement runs')
    await client.command({ query: 'SELECT 1' })
    await until('a statement to bring a scan', () => engineThreadScans() > seen, 1500)
  })

  test("the engine's tracked memory reads as bytes, more than nothing once it has worked", async () => {
    const bytes = await engineMemoryBytes(client)
    assert.ok(Number.isSafeInteger(bytes) && bytes > 0, String(bytes))
  })

  test('a span delivered twice is read and counted once', async () => {
    const traceId = '11111111111111111111111111111111'
    const root = span({ traceId })
    const a = llmChild(traceId, '00000000000000a1', 10, at(200))
    const b = llmChild(traceId, '00000000000000b2', 20, at(300))
    await insertSpans(client, [root, a])
    await refreshTraceRollups(client, [{ projectId: 'p1', traceId }])
    await insertSpans(client, [a, b, b])
    await refreshTraceRollups(client, [{ projectId: 'p1', traceId }])
    const trace = await readTrace(client, 'p1', traceId)
    assert.deepEqual(
      trace?.spans.map((s) => s.spanId),
      [root.spanId, a.spanId, b.spanId],
    )
    const [summary] = (await listTraces(client, 'p1', { limit: 100 })).filter((t) => t.traceId === traceId)
    assert.ok(summary)
    assert.equal(summary.spanCount, 3)
    assert.equal(summary.llmCallCount, 2)
    assert.equal(summary.errorCount, 2)
    assert.equal(summary.inputTokens, 30)
    assert.equal(summary.rootSpanId, root.spanId)
    assert.equal(summary.rootName, 'invoke_agent support')
    assert.equal(summary.agentName, 'support')
    assert.equal(summary.model, 'gpt-4o')
    assert.equal(summary.startTimeUnixNano, root.startTimeUnixNano)
    assert.equal(summary.endTimeUnixNano, root.endTimeUnixNano)
  })

  test("tokens are the model calls' own: an agent span repeating their totals is not added again", async () => {
    const traceId = '12121212121212121212121212121212'
    // The Vercel AI SDK's ai.generateText carries the totals of its ai.generateText.doGenerate calls.
    const agent = span({ traceId, attributes: { 'ai.operationId': 'ai.generateText', 'ai.usage.inputTokens': 30, 'ai.usage.outputTokens': 2 } })
    await insertSpans(client, [agent, llmChild(traceId, '00000000000000d4', 10, at(200)), llmChild(traceId, '00000000000000e5', 20, at(300))])
    await insertSpans(client, [
      span({ traceId: '34343434343434343434343434343434', attributes: { 'ai.operationId': 'ai.generateText', 'ai.usage.inputTokens': 30 } }),
    ])
    await refreshTraceRollups(client, [
      { projectId: 'p1', traceId },
      { projectId: 'p1', traceId: '34343434343434343434343434343434' },
    ])
    const rows = await listTraces(client, 'p1', { limit: 100 })
    assert.deepEqual(
      rows.filter((t) => t.traceId === traceId).map((t) => [t.inputTokens, t.outputTokens, t.llmCallCount]),
      [[30, 2, 2]],
    )
    assert.equal(
      rows.find((t) => t.traceId === '34343434343434343434343434343434')?.inputTokens,
      30,
      "without model-call counts, the agent span's are the trace's",
    )
  })

  test("a session its user associated names the trace's session over the root's thread id, from attributes or resource", async () => {
    const thread = { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'thread-1' }
    const child = (traceId: string, where: 'attributes' | 'resource', sessionId: string | undefined): Span => {
      const base = llmChild(traceId, '00000000000000f6', 1, at(500))
      if (sessionId === undefined) return base
      const association = { 'traceloop.association.properties.session_id': sessionId }
      return where === 'attributes'
        ? { ...base, attributes: { ...base.attributes, ...association } }
        : { ...base, resource: { ...base.resource, ...association } }
    }
    const traces = { attributes: '56565656565656565656565656565656', resource: '57575757575757575757575757575757', none: '58585858585858585858585858585858' }
    await insertSpans(client, [
      span({ traceId: traces.attributes, attributes: thread }),
      child(traces.attributes, 'attributes', 'chat-7'),
      span({ traceId: traces.resource, attributes: thread }),
      child(traces.resource, 'resource', 'chat-8'),
      span({ traceId: traces.none, attributes: thread }),
      child(traces.none, 'attributes', undefined),
    ])
    await refreshTraceRollups(
      client,
      Object.values(traces).map((traceId) => ({ projectId: 'p1', traceId })),
    )
    const rows = await listTraces(client, 'p1', { limit: 100 })
    const sessionOf = (traceId: string) => rows.find((t) => t.traceId === traceId)?.sessionId
    assert.deepEqual([sessionOf(traces.attributes), sessionOf(traces.resource), sessionOf(traces.none)], ['chat-7', 'chat-8', 'thread-1'])
  })

  test('a root span arriving after its children moves the trace start without leaving a second row', async () => {
    const traceId = '22222222222222222222222222222222'
    await insertSpans(client, [llmChild(traceId, '00000000000000c3', 5, at(400))])
    await refreshTraceRollups(client, [{ projectId: 'p1', traceId }])
    await insertSpans(client, [span({ traceId, startTimeUnixNano: at(-3_600_000) })])
    await refreshTraceRollups(client, [{ projectId: 'p1', traceId }])
    const rows = (await listTraces(client, 'p1', { limit: 100 })).filter((t) => t.traceId === traceId)
    assert.equal(rows.length, 1)
    assert.equal(rows[0]!.startTimeUnixNano, at(-3_600_000))
    assert.equal(rows[0]!.spanCount, 2)
  })

  test('a span that started long ago but just arrived outlives merges for the full retention', async () => {
    const traceId = '33333333333333333333333333333333'
    await insertSpans(client, [span({ traceId, startTimeUnixNano: '1544712660000000000', endTimeUnixNano: '1544712661000000000' })])
    await client.command({ query: 'OPTIMIZE TABLE spans FINAL' })
    assert.equal((await readTrace(client, 'p1', traceId))?.spans[0]?.startTimeUnixNano, '1544712660000000000')
  })

  test('rewriting the rollup of many thousands of traces at once stays within the query size limit', async () => {
    const traceIds = Array.from({ length: 9000 }, (_, i) => i.toString(16).padStart(32, 'f'))
    await insertSpans(client, [span({ traceId: traceIds[8999]!, spanId: 'cccccccccccccccc' })])
    await refreshTraceRollups(
      client,
      traceIds.map((traceId) => ({ projectId: 'p1', traceId })),
    )
    const rows = (await listTraces(client, 'p1', { limit: 1000 })).filter((t) => t.traceId === traceIds[8999])
    assert.equal(rows.length, 1)
  })

  test('reads see only the asked project', async () => {
    const root = span()
    assert.equal(await readTrace(client, 'other', root.traceId), undefined)
    assert.deepEqual(await listTraces(client, 'other', { limit: 10 }), [])
  })

  test('listing filters by start time and service and respects the limit', async () => {
    const all = await listTraces(client, 'p1', { limit: 100 })
    assert.ok(all.length >= 2)
    assert.deepEqual(await listTraces(client, 'p1', { limit: 100, service: 'nope' }), [])
    const recent = await listTraces(client, 'p1', { limit: 100, sinceUnixNano: at(-60_000) })
    assert.ok(recent.every((t) => BigInt(t.startTimeUnixNano) >= BigInt(at(-60_000))))
    assert.ok(recent.length < all.length)
    assert.equal((await listTraces(client, 'p1', { limit: 1 })).length, 1)
  })
})
