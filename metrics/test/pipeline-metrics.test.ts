import assert from 'node:assert/strict'
import { test } from 'node:test'
import { countedInsert, createPipelineMetrics, registerEngineMemoryGauge } from '../src/index.js'

test('countedInsert counts an insert under its table once it succeeded, and a failed one not at all', async () => {
  const metrics = createPipelineMetrics()
  await countedInsert(metrics, 'scores', 3, async () => {})
  await assert.rejects(
    countedInsert(metrics, 'scores', 5, async () => {
      throw new Error('refused')
    }),
    /refused/,
  )
  const rows = await metrics.insertRows.get()
  assert.deepEqual(
    rows.values.map((v) => [v.labels, v.value]),
    [[{ table: 'scores' }, 3]],
  )
  const count = (await metrics.insertDuration.get()).values.find((v) => v.metricName === 'sieve_insert_duration_seconds_count')
  assert.equal(count?.value, 1)
  // Without metrics (a test's sink, `sieve score`) the insert still runs.
  let ran = false
  await countedInsert(undefined, 'scores', 1, async () => {
    ran = true
  })
  assert.ok(ran)
})

test('each registry is its own, with process metrics and the longest event-loop stall since start', async () => {
  const a = createPipelineMetrics()
  const b = createPipelineMetrics()
  a.spansAccepted.inc({ project: 'p' }, 2)
  assert.match(await a.registry.metrics(), /^sieve_spans_accepted_total\{project="p"\} 2$/m)
  assert.doesNotMatch(await b.registry.metrics(), /sieve_spans_accepted_total\{/)
  const text = await a.registry.metrics()
  assert.match(text, /^process_cpu_user_seconds_total /m)
  assert.match(text, /^sieve_event_loop_delay_max_seconds \d/m)
})

test("the engine's memory gauge reports the previous read and never makes a scrape wait for the engine", async () => {
  const metrics = createPipelineMetrics()
  const reads: ((bytes: number) => void)[] = []
  registerEngineMemoryGauge(metrics.registry, () => new Promise<number>((resolve) => reads.push(resolve)))
  const gauge = async () => Number(/^sieve_engine_memory_bytes (\S+)$/m.exec(await metrics.registry.metrics())?.[1])
  // The engine does not answer: scrapes still answer at once, with no second read piled on the first.
  assert.equal(await gauge(), 0)
  assert.equal(await gauge(), 0)
  assert.equal(reads.length, 1)
  reads[0]!(123_456_789)
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(await gauge(), 123_456_789)
  assert.equal(reads.length, 2, 'that scrape started the next read')
})

test('the longest stall since start outlives the scrape that reported it', async () => {
  const metrics = createPipelineMetrics()
  const read = async () => {
    const text = await metrics.registry.metrics()
    const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
    return { sinceScrape: value('nodejs_eventloop_lag_max_seconds'), sinceStart: value('sieve_event_loop_delay_max_seconds') }
  }
  // The monitor measures from its first beat on.
  await new Promise((resolve) => setTimeout(resolve, 250))
  const busyUntil = performance.now() + 300
  while (performance.now() < busyUntil) {}
  // The monitor records the stall when its timer runs, once the loop is free again.
  await new Promise((resolve) => setTimeout(resolve, 150))
  const first = await read()
  assert.ok(first.sinceScrape >= 0.2 && first.sinceStart >= first.sinceScrape, JSON.stringify(first))
  await new Promise((resolve) => setTimeout(resolve, 250))
  const second = await read()
  assert.ok(second.sinceScrape < 0.2, `prom-client's figure restarts at each scrape: ${JSON.stringify(second)}`)
  assert.equal(second.sinceStart, first.sinceStart)
})
