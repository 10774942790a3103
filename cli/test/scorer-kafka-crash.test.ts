import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import kafkajs from 'kafkajs'
import { createStorage } from '@sieve/core'
import { openKafkaQueue } from '@sieve/queue'
import { countRows, makeTraces, roleMetricsUrl, sharedBrokers, spawnSieve, until, type SieveProcess } from '@sieve/testkit'
import { uniqueKafkaSettings } from '@sieve/testkit/kafka-stack'

let brokers: string[]
let release: () => Promise<void>
let dataDir: string
before(async () => {
  ;({ brokers, release } = await sharedBrokers())
  dataDir = await mkdtemp(join(tmpdir(), 'sieve-scorer-crash-'))
})
const children = new Set<ChildProcess>()
after(async () => {
  // A failed run must not leave a scorer behind (it would keep the test process alive).
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  await release?.()
  await rm(dataDir, { recursive: true, force: true })
})

function sieve(command: string, env: Record<string, string>): SieveProcess {
  const run = spawnSieve(command, { SIEVE_DATA_DIR: join(dataDir, 'data'), ...env })
  children.add(run.child)
  return run
}

async function startScorer(env: Record<string, string>): Promise<SieveProcess & { metrics: string }> {
  const run = sieve('scorer', env)
  return { ...run, metrics: await roleMetricsUrl(run, 'scorer') }
}

/** Traces this scorer process has scored (first scorings and re-scorings alike). */
async function scored(metricsUrl: string): Promise<number> {
  const text = await (await fetch(metricsUrl)).text()
  let n = 0
  for (const m of text.matchAll(/^sieve_scored_traces_total\{[^}]*\} (\d+)/gm)) n += Number(m[1])
  return n
}

test('kill -9 of `sieve scorer` mid-stream of 300 traces, then a restart: every trace scored, each check once', async () => {
  const N = 300
  const perTrace = 4
  const kafka = uniqueKafkaSettings(brokers)
  const group = `scorer-${randomUUID().slice(0, 8)}`
  const configFile = join(dataDir, 'sieve.json')
  await writeFile(configFile, JSON.stringify({ scorer: { quietPeriodMs: 500, tickMs: 100, writeBatchTraces: 10, group } }))
  const env = {
    KAFKA_BROKERS: brokers.join(','),
    KAFKA_SPANS_TOPIC: kafka.spansTopic,
    KAFKA_SCORES_TOPIC: kafka.scoresTopic,
    KAFKA_DEAD_LETTER_TOPIC: kafka.deadLetterTopic,
    KAFKA_TOPIC_PARTITIONS: String(kafka.partitions),
    SIEVE_CONFIG_FILE: configFile,
  }
  const migrate = sieve('migrate', env)
  const [code] = await once(migrate.child, 'exit')
  assert.equal(code, 0, migrate.output())

  // Each trace's spans are published together, root first, as an SDK's batch exporter would.
  const spans = makeTraces(N, perTrace)
  const traceIds = [...new Set(spans.map((s) => s.traceId))]
  assert.equal(traceIds.length, N)
  const queue = await openKafkaQueue({ kafka })
  const publish = async (fromTrace: number, toTrace: number, pauseMs = 0) => {
    for (let t = fromTrace; t < toTrace; t += 10) {
      await queue.publish(spans.slice(t * perTrace, Math.min(toTrace, t + 10) * perTrace))
      if (pauseMs) await new Promise((r) => setTimeout(r, pauseMs))
    }
  }
  await publish(0, 100)

  const first = await startScorer(env)
  const rest = publish(100, N, 100)
  let before = 0
  await until('the first scorer to score 100 traces', async () => (before = await scored(first.metrics)) >= 100, 120_000).catch((err: Error) => {
    throw new Error(`${err.message}:\n${first.output()}`)
  })
  first.child.kill('SIGKILL')
  await once(first.child, 'exit')
  assert.ok(before < N, `the scorer was killed only after scoring all ${N} traces (${before})`)
  await rest
  await queue.close()

  const second = await startScorer(env)
  const admin = new kafkajs.Kafka({ clientId: 'scorer-crash-check', brokers, logLevel: kafkajs.logLevel.NOTHING }).admin()
  await admin.connect()
  let committed = ''
  try {
    await until(
      'every offset committed by the scorer',
      async () => {
        const [offsets] = await admin.fetchOffsets({ groupId: group, topics: [kafka.spansTopic] })
        committed = offsets!.partitions.map((p) => `${p.partition}:${p.offset}`).join(' ')
        return offsets!.partitions.reduce((n, p) => n + Math.max(0, Number(p.offset)), 0) === spans.length
      },
      180_000,
    )
  } catch (err) {
    throw new Error(`${(err as Error).message}; committed ${committed}\n${first.output()}\n---\n${second.output()}`)
  } finally {
    await admin.disconnect()
  }
  second.child.kill('SIGTERM')
  const [stopped] = await once(second.child, 'exit')
  assert.equal(stopped, 0, second.output())

  // chDB allows one process per data dir: the scores are read once the scorer has stopped.
  const storage = await createStorage({ kind: 'embedded', path: join(dataDir, 'data', 'clickhouse'), database: 'sieve' })
  try {
    const checks = (await (
      await storage.query({
        query: `SELECT DISTINCT scorer_name FROM scores FINAL WHERE kind = 'deterministic' ORDER BY scorer_name`,
        format: 'JSONEachRow',
      })
    ).json()) as { scorer_name: string }[]
    const names = checks.map((c) => c.scorer_name)
    assert.ok(names.includes('trace_complete'), `checks stored: ${names.join(', ')}`)

    // Per trace: exactly one row per check, for every check, and no trace missing or unknown.
    const rows = (await (
      await storage.query({
        query: `SELECT trace_id, scorer_name, count() AS n FROM scores FINAL WHERE kind = 'deterministic' GROUP BY trace_id, scorer_name`,
        format: 'JSONEachRow',
      })
    ).json()) as { trace_id: string; scorer_name: string; n: string | number }[]
    const perTraceChecks = new Map<string, string[]>()
    for (const r of rows) {
      assert.equal(Number(r.n), 1, `trace ${r.trace_id} has ${r.n} rows for ${r.scorer_name}`)
      perTraceChecks.set(r.trace_id, [...(perTraceChecks.get(r.trace_id) ?? []), r.scorer_name])
    }
    assert.deepEqual([...perTraceChecks.keys()].sort(), [...traceIds].sort())
    for (const [traceId, got] of perTraceChecks) assert.deepEqual(got.sort(), names, `checks of trace ${traceId}`)

    // Every trace was whole when scored: the crash re-delivered its spans, never a part of them.
    assert.equal(await countRows(storage, `SELECT countIf(passed = 0) FROM scores FINAL WHERE scorer_name = 'trace_complete'`), 0)

    assert.equal(await countRows(storage, `SELECT count() FROM scores FINAL WHERE kind = 'deterministic'`), N * names.length)
    assert.equal(await countRows(storage, `SELECT uniqExact(trace_id, scorer_name) FROM scores WHERE kind = 'deterministic'`), N * names.length)
    assert.equal(await countRows(storage, `SELECT count() FROM (SELECT DISTINCT trace_id, scorer_name FROM scores FINAL)`), N * names.length)
  } finally {
    await storage.close()
  }
})
