import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { createStorage, type AttributeValue, type Span } from '@sieve/core'
import { countRows, makeTraces, spawnSieve, until, type SieveProcess } from '@sieve/testkit'

/*
 * Issue #19 on the embedded default (`sieve up`: in-process queue, chDB in process): a span is
 * acknowledged once it is in `spans`, while the `traces` rollup and the scorer's assembly live in
 * memory. kill -9 used to leave acknowledged traces out of `traces` and unscored for good, and a
 * SIGTERM under a scoring backlog crashed inside libchdb when the stop gave up.
 */

const root = mkdtempSync(join(tmpdir(), 'sieve-up-crash-'))
const children = new Set<ChildProcess>()
after(() => {
  // A failed run must not leave `sieve up` behind (it would keep the test process alive).
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

const SPANS_PER_TRACE = 5
/** Whole traces per request, as an SDK's batch exporter sends them. */
const TRACES_PER_REQUEST = 50

async function up(dataDir: string, scorer: Record<string, number>): Promise<SieveProcess & { url: string }> {
  mkdirSync(dataDir, { recursive: true })
  const configFile = join(dataDir, 'sieve.json')
  writeFileSync(configFile, JSON.stringify({ scorer }))
  // KAFKA_BROKERS empty: the embedded default, whatever `npm test` exports for the Kafka tests.
  const run = spawnSieve('up', { SIEVE_DATA_DIR: dataDir, SIEVE_CONFIG_FILE: configFile, KAFKA_BROKERS: '' })
  children.add(run.child)
  await until(
    'sieve up to start',
    () => {
      if (run.child.exitCode !== null || run.child.signalCode !== null)
        throw new Error(`sieve up exited ${run.child.exitCode ?? run.child.signalCode}:\n${run.output()}`)
      return run.output().includes('Sieve is up')
    },
    60_000,
  )
  return { ...run, url: /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(run.output())![1]! }
}

async function exited(run: SieveProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const { child } = run
  // Bounded: the stop gives up after 30 s and then waits at most 30 s for storage.
  await until('sieve up to exit', () => child.exitCode !== null || child.signalCode !== null, 90_000).catch((err: Error) => {
    throw new Error(`${err.message}:\n${run.output()}`)
  })
  return { code: child.exitCode, signal: child.signalCode }
}

const anyValue = (v: AttributeValue): unknown =>
  typeof v === 'string'
    ? { stringValue: v }
    : typeof v === 'boolean'
      ? { boolValue: v }
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? { intValue: String(v) }
          : { doubleValue: v }
        : Array.isArray(v)
          ? { arrayValue: { values: v.map(anyValue) } }
          : { stringValue: JSON.stringify(v) }
const keyValues = (attributes: Record<string, AttributeValue>) => Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }))

/** OTLP/JSON of spans made by testkit's builders (one resource, one scope). */
function otlpJson(spans: Span[]): string {
  return JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: keyValues(spans[0]!.resource) },
        scopeSpans: [
          {
            scope: { name: 'crash-test' },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId,
              name: s.name,
              kind: 3,
              startTimeUnixNano: s.startTimeUnixNano,
              endTimeUnixNano: s.endTimeUnixNano,
              attributes: keyValues(s.attributes),
              events: s.events.map((e) => ({ timeUnixNano: e.timeUnixNano, name: e.name, attributes: keyValues(e.attributes) })),
              status: { code: 1 },
            })),
          },
        ],
      },
    ],
  })
}

/**
 * Sends the traces as OTLP requests, a few in flight, and records which traces were acknowledged
 * (200). Stops sending once `stop()` is called; requests cut off by a kill count as not acknowledged.
 */
function sender(url: string, traces: number) {
  const spans = makeTraces(traces, SPANS_PER_TRACE)
  const requests: { body: string; traceIds: string[] }[] = []
  for (let i = 0; i < spans.length; i += TRACES_PER_REQUEST * SPANS_PER_TRACE) {
    const part = spans.slice(i, i + TRACES_PER_REQUEST * SPANS_PER_TRACE)
    requests.push({ body: otlpJson(part), traceIds: [...new Set(part.map((s) => s.traceId))] })
  }
  const acknowledged = new Set<string>()
  const agent = new Agent({ keepAlive: true, maxSockets: 4 })
  let next = 0
  let stopped = false
  const post = (body: string) =>
    new Promise<number>((resolve) => {
      const req = request(`${url}/v1/traces`, { method: 'POST', agent, headers: { 'content-type': 'application/json' } }, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode ?? 0))
        res.on('error', () => resolve(0))
      })
      req.on('error', () => resolve(0))
      req.end(body)
    })
  const worker = async () => {
    while (!stopped && next < requests.length) {
      const { body, traceIds } = requests[next++]!
      if ((await post(body)) === 200) for (const id of traceIds) acknowledged.add(id)
    }
  }
  const done = Promise.all(Array.from({ length: 4 }, worker)).finally(() => agent.destroy())
  return {
    acknowledged,
    done,
    stop: () => {
      stopped = true
      agent.destroy()
      return done
    },
  }
}

/**
 * Waits until the restarted scorer holds no open trace: the traces it read back at start are
 * scored (those still in their quiet period at start too). The gauge is set on every tick.
 */
async function scorerIdle(run: SieveProcess & { url: string }): Promise<void> {
  await until(
    'the scorer to finish the recovered traces',
    async () => {
      const text = await (await fetch(`${run.url}/metrics`)).text()
      return /^sieve_assembler_open_traces 0$/m.test(text)
    },
    30_000,
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${run.output()}`)
  })
}

/** What storage holds about the acknowledged traces, read once `sieve up` has stopped (one process per data dir). */
async function verify(dataDir: string, acknowledged: Set<string>): Promise<void> {
  const storage = await createStorage({ kind: 'embedded', path: join(dataDir, 'clickhouse'), database: 'sieve' })
  try {
    await storage.command({ query: 'CREATE TEMPORARY TABLE acked (trace_id String)' })
    await storage.insert({ table: 'acked', values: [...acknowledged].map((trace_id) => ({ trace_id })), format: 'JSONEachRow' })
    const n = acknowledged.size
    assert.equal(
      await countRows(storage, 'SELECT count() FROM spans FINAL WHERE trace_id IN (SELECT trace_id FROM acked)'),
      n * SPANS_PER_TRACE,
      'every acknowledged span stored',
    )
    assert.equal(
      await countRows(storage, 'SELECT count() FROM traces FINAL WHERE trace_id IN (SELECT trace_id FROM acked)'),
      n,
      'every acknowledged trace in the rollup',
    )
    assert.equal(
      await countRows(storage, 'SELECT sum(span_count) FROM traces FINAL WHERE trace_id IN (SELECT trace_id FROM acked)'),
      n * SPANS_PER_TRACE,
      'rollups count every span',
    )
    // Stored but cut off before its answer counts too: every trace in storage is in the rollup and scored.
    const stored = await countRows(storage, 'SELECT uniqExact(trace_id) FROM spans')
    assert.equal(await countRows(storage, 'SELECT count() FROM traces FINAL'), stored, 'every stored trace in the rollup')
    assert.equal(await countRows(storage, "SELECT uniqExact(trace_id) FROM scores WHERE kind = 'deterministic'"), stored, 'every stored trace scored')
    assert.equal(
      await countRows(storage, "SELECT uniqExact(trace_id) FROM scores WHERE kind = 'deterministic' AND trace_id IN (SELECT trace_id FROM acked)"),
      n,
      'every acknowledged trace scored',
    )
    // Scored whole (their roots were stored with them), and each check once.
    assert.equal(
      await countRows(storage, "SELECT countIf(passed = 0) FROM scores FINAL WHERE scorer_name = 'trace_complete'"),
      0,
      'recovered traces scored complete',
    )
    assert.equal(
      await countRows(
        storage,
        "SELECT count() FROM (SELECT trace_id, scorer_name FROM scores FINAL WHERE kind = 'deterministic' GROUP BY trace_id, scorer_name HAVING count() > 1)",
      ),
      0,
    )
  } finally {
    await storage.close()
  }
}

test('kill -9 of `sieve up` mid-load, twice: after a restart every acknowledged span stored, every acknowledged trace in `traces` and scored', async () => {
  const dataDir = join(root, 'kill')
  const scorer = { quietPeriodMs: 500, tickMs: 100 }
  const acknowledged = new Set<string>()
  for (const round of [1, 2]) {
    const run = await up(dataDir, scorer)
    // 2,000 traces of 5 spans; killed once 5,000 spans are acknowledged, well inside the rollup's 2 s
    // rewrite interval and the scorer's quiet period for the traces of the last requests.
    const load = sender(run.url, 2000)
    await until(`round ${round}: 5,000 spans acknowledged`, () => load.acknowledged.size * SPANS_PER_TRACE >= 5000, 60_000)
    run.child.kill('SIGKILL')
    await once(run.child, 'exit')
    await load.stop()
    for (const id of load.acknowledged) acknowledged.add(id)
  }
  const last = await up(dataDir, scorer)
  await scorerIdle(last)
  last.child.kill('SIGTERM')
  const { code, signal } = await exited(last)
  assert.deepEqual({ code, signal }, { code: 0, signal: null }, last.output())
  await verify(dataDir, acknowledged)
  assert.match(last.output(), /ingester: rewrote the rollup of \d+ traces/)
  assert.match(last.output(), /scorer: read back \d+ unscored traces/)
})

test('SIGTERM under a scoring backlog stops with exit 0 or 1, never by a signal; the next start scores what was left', async () => {
  const dataDir = join(root, 'term')
  // One score insert per trace: the scorer falls far behind 2,000 traces, as it does under heavy load.
  const first = await up(dataDir, { quietPeriodMs: 0, tickMs: 50, writeBatchTraces: 1 })
  const load = sender(first.url, 2000)
  await load.done
  first.child.kill('SIGTERM')
  const { code, signal } = await exited(first)
  assert.equal(signal, null, `sieve up was killed by ${signal}:\n${first.output()}`)
  assert.ok(code === 0 || code === 1, `exit ${code}:\n${first.output()}`)
  if (code === 1) assert.match(first.output(), /gave up after 30s with .*traces not scored/)

  const second = await up(dataDir, { quietPeriodMs: 500, tickMs: 100 })
  await scorerIdle(second)
  second.child.kill('SIGTERM')
  assert.deepEqual(await exited(second), { code: 0, signal: null }, second.output())
  assert.equal(load.acknowledged.size, 2000)
  await verify(dataDir, load.acknowledged)
})
