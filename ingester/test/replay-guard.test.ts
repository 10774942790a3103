// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { insertSpans, migrate, type QueuedSpan } from '@sieve/core'
import { countRows, makeTraces } from '@sieve/testkit'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { ReplayGuard } from '../src/replay-guard.js'

// Issue #19: a Kafka replay (after kill -9, a failed insert or a rebalance) inserted again the spans
// the uncommitted records held, thousands of extra rows until merges collapsed them.

const dir = mkdtempSync(join(tmpdir(), 'sieve-replay-guard-'))
let store: TestStorage
before(async () => {
  store = await openTestStorage({ path: dir })
  await migrate(store.storage, { retentionDays: 30 })
})
after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `count` spans of one project as partition `partition` delivers them, from `offset` on. */
function records(project: string, partition: number, offset: number, count: number): QueuedSpan[] {
  return makeTraces(count, 1).map((span, i) => ({ span: { ...span, projectId: project }, partition, offset: String(offset + i), bytes: 1000 }))
}

/** What an ingester does with a batch: admit, insert what was admitted, mark it inserted. */
async function ingest(guard: ReplayGuard, batch: QueuedSpan[]): Promise<number> {
  const { insert, replayed } = await guard.admit(batch)
  await insertSpans(
    store.storage,
    insert.map((q) => q.span),
  )
  guard.inserted(batch)
  return replayed
}

const rows = (project: string) => countRows(store.storage, `SELECT count() FROM spans WHERE project_id = '${project}'`)

test('a restarted ingester handed records it had stored without committing inserts only the new ones', async () => {
  const stream = records('restart', 0, 0, 30)
  const before = new ReplayGuard(store.storage, 'restart-group')
  assert.equal(await ingest(before, stream.slice(0, 10)), 0)
  assert.equal(await ingest(before, stream.slice(10, 20)), 0)
  // Killed before committing: the new process is handed everything from offset 0 again.
  const after = new ReplayGuard(store.storage, 'restart-group')
  assert.equal(await ingest(after, stream), 20)
  assert.equal(await rows('restart'), 30)
})

test('a batch fetched again after a failed insert stores what the failed attempt did not, once', async () => {
  const guard = new ReplayGuard(store.storage, 'retry-group')
  const batch = records('retry', 1, 100, 20)
  await guard.admit(batch)
  // The insert timed out after storing half of the batch; the partition is fetched again from 100.
  await insertSpans(
    store.storage,
    batch.slice(0, 10).map((q) => q.span),
  )
  assert.equal(await ingest(guard, batch), 10)
  assert.equal(await rows('retry'), 20)
})

test('after a rebalance the batches of a partition another member stored are checked, continuing ones are not', async () => {
  const mine = new ReplayGuard(store.storage, 'rebalance-group')
  const theirs = new ReplayGuard(store.storage, 'rebalance-group')
  const stream = records('rebalance', 2, 0, 30)
  await ingest(mine, stream.slice(0, 10))
  // The partition moved to another member, which stored 10-19 without committing past 10, and back.
  await ingest(theirs, stream.slice(10, 20))
  mine.reassigned()
  assert.equal(await ingest(mine, stream.slice(10)), 10)
  assert.equal(await rows('rebalance'), 30)
  // A batch that continues where this process left off is new: nothing is looked up, nothing skipped.
  const next = records('rebalance', 2, 30, 5)
  await insertSpans(
    store.storage,
    next.map((q) => q.span),
  )
  assert.equal(await ingest(mine, next), 0)
})

test('records past the recorded reach are new even when the partition resumes elsewhere', async () => {
  const guard = new ReplayGuard(store.storage, 'fresh-group')
  const batch = records('fresh', 3, 500, 10)
  // Spans already stored by other means (a sender's retry written at another offset) are not this guard's concern.
  await insertSpans(
    store.storage,
    batch.slice(0, 3).map((q) => q.span),
  )
  assert.equal(await ingest(guard, batch), 0)
  assert.equal(await rows('fresh'), 13)
})
