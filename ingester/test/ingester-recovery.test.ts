// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { insertSpans, migrate, PROGRESS_SLACK_MS, readProgress } from '@sieve/core'
import { countRows, makeTraces } from '@sieve/testkit'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { InProcessQueue } from '@sieve/queue'
import { startIngester } from '../src/index.js'

// Issue #19: on the embedded queue a span is acknowledged once stored, and the `traces` rollup of its
// trace was rewritten from memory only; kill -9 in between left the trace out of `traces` for good.

const dir = mkdtempSync(join(tmpdir(), 'sieve-ingester-recovery-'))
let store: TestStorage
let storage: Storage
before(async () => {
  store = await openTestStorage({ path: dir })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
})
after(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

test('at start the ingester rewrites the rollup of traces stored since the recorded progress, before taking spans, and records progress as it goes', async () => {
  // Stored by an ingester that died before its rollup rewrite.
  const lost = makeTraces(300, 4)
  await insertSpans(storage, lost)
  assert.equal(await countRows(storage, 'SELECT count() FROM traces FINAL'), 0)

  const logs: string[] = []
  const queue = new InProcessQueue({ lingerMs: 0 })
  const ingester = await startIngester({ queue, storage, recover: true, log: (m) => logs.push(m) })
  assert.equal(await countRows(storage, 'SELECT count() FROM traces FINAL'), 300)
  assert.equal(await countRows(storage, 'SELECT sum(span_count) FROM traces FINAL'), 1200)
  assert.match(logs.join('\n'), /rewrote the rollup of 300 traces/)

  await queue.publish(makeTraces(10, 4))
  const stoppedAt = Date.now()
  await ingester.stop()
  await queue.close()
  assert.equal(await countRows(storage, 'SELECT count() FROM traces FINAL'), 310)
  // Everything stored is in the rollup: progress recorded as of the stop, less the slack.
  const recorded = (await readProgress(storage, 'rollup'))!
  assert.ok(recorded >= stoppedAt - PROGRESS_SLACK_MS && recorded <= Date.now() - PROGRESS_SLACK_MS, `${recorded} vs ${stoppedAt}`)
})
