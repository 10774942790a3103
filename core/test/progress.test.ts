// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { insertSpans, migrate, ProgressRecorder, PROGRESS_SLACK_MS, readProgress, tracesArrivedSince, type Span } from '@sieve/core'

// Recovery of the embedded pipeline's in-memory stages after a restart (issue #19): recorded progress and what arrived since.

const dir = mkdtempSync(join(tmpdir(), 'sieve-progress-'))
let store: TestStorage
let client: Storage
before(async () => {
  store = await openTestStorage({ path: dir, database: 'sieve' })
  client = store.storage
  await migrate(client, { retentionDays: 30 })
})
after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function span(traceId: string, spanId: string, parentSpanId = ''): Span {
  return {
    projectId: 'p',
    traceId,
    spanId,
    parentSpanId,
    traceState: '',
    name: 'step',
    kind: 'INTERNAL',
    startTimeUnixNano: '1764400000000000000',
    endTimeUnixNano: '1764400001000000000',
    status: { code: 'OK', message: '' },
    flags: 0,
    serviceName: 'agent',
    scope: { name: 't', version: '', attributes: {} },
    attributes: {},
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}
const id = (n: number) => n.toString(16).padStart(32, '0')

test('progress: none until recorded; recorded the slack behind the stage, never past a hold; the newest record wins', async () => {
  assert.equal(await readProgress(client, 'rollup'), undefined)
  let doneBefore = Date.now()
  const recorder = new ProgressRecorder({ storage: client, stage: 'rollup', doneBefore: () => doneBefore })
  await recorder.stop()
  assert.equal(await readProgress(client, 'rollup'), doneBefore - PROGRESS_SLACK_MS)
  doneBefore += 60_000
  const held = new ProgressRecorder({ storage: client, stage: 'rollup', doneBefore: () => doneBefore })
  held.holdAt(doneBefore - 30_000)
  await held.stop()
  assert.equal(await readProgress(client, 'rollup'), doneBefore - 30_000)
  assert.equal(await readProgress(client, 'scores'), undefined)
})

test('progress: an idle stage records once past its last work, then nothing until it works again', async () => {
  let lastWork = Date.now() - 60_000
  const recorder = new ProgressRecorder({ storage: client, stage: 'scores', doneBefore: () => Date.now(), lastWorkAt: () => lastWork, intervalMs: 20 })
  recorder.start()
  try {
    await sleep(150)
    const first = await readProgress(client, 'scores')
    assert.ok(first !== undefined && first >= lastWork)
    await sleep(150)
    assert.equal(await readProgress(client, 'scores'), first, 'idle: nothing more written')
    lastWork = Date.now()
    await sleep(150)
    const moved = await readProgress(client, 'scores')
    assert.ok(moved !== undefined && moved > first, 'work again: recorded again')
  } finally {
    await recorder.stop()
  }
})

test('traces arrived since a time: earliest arrival first, bounded; unscored ones have no scores or older ones than their last span', async () => {
  const since = Date.now()
  await sleep(5)
  await insertSpans(client, [span(id(1), 'a1'), span(id(2), 'b1')])
  await sleep(5)
  await insertSpans(client, [span(id(3), 'c1'), span(id(1), 'a2', 'a1')])
  const arrived = await tracesArrivedSince(client, { sinceMs: since, limit: 10 })
  assert.deepEqual(
    arrived.map((t) => t.traceId),
    [id(1), id(2), id(3)],
  )
  assert.ok(arrived[0]!.lastArrivalMs > arrived[0]!.firstArrivalMs)
  assert.deepEqual(
    (await tracesArrivedSince(client, { sinceMs: since, limit: 2 })).map((t) => t.traceId),
    [id(1), id(2)],
  )
  assert.deepEqual(await tracesArrivedSince(client, { sinceMs: Date.now() + 1000, limit: 10 }), [])

  // Trace 2 scored after its span arrived, trace 1 before its second span did, trace 3 never.
  const score = (traceId: string, createdAtMs: number) =>
    client.command({
      query: `INSERT INTO scores (project_id, trace_id, scorer_name, kind, scorer_version, created_at)
        SELECT 'p', '${traceId}', 'trace_complete', 'deterministic', '1', fromUnixTimestamp64Milli(${createdAtMs})`,
    })
  await score(id(2), Date.now())
  await score(id(1), arrived[0]!.firstArrivalMs + 1)
  const unscored = await tracesArrivedSince(client, { sinceMs: since, limit: 10, unscored: true })
  assert.deepEqual(
    unscored.map((t) => [t.traceId, t.scored]),
    [
      [id(1), true],
      [id(3), false],
    ],
  )
})
