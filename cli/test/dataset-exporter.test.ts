// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { after, before, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { insertSpans, loadConfig, migrate } from '@sieve/core'
import { parseDataset } from '@sieve/dataset'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { openTestStorage, type TestStorage } from '@sieve/testkit/clickhouse-http'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { createDatasetExporter } from '../src/dataset-exporter.js'

/*
 * The dashboard's "export to dataset" as `sieve up` wires it: one dataset per project under
 * <SIEVE_DATA_DIR>/datasets/<project>/golden.jsonl, deduplicated within the project only.
 */

const dir = mkdtempSync(join(tmpdir(), 'sieve-dataset-exporter-'))
const dataDir = join(dir, 'data')
let store: TestStorage | undefined
let storage: Storage
const checks = resolveChecksConfig(checksSection)

/** The refund-outside-policy scenario stored and scored under a project: every one has the same input. */
async function failing(projectId: string): Promise<string> {
  const trace = scenarios.refundOutsidePolicy().trace(projectId)
  await insertSpans(storage, trace.spans)
  await clickhouseScoreSink(storage).write(traceScoreRecords(scoreTrace(trace, checks)))
  return trace.traceId
}

const examplesIn = (path: string) => parseDataset(readFileSync(path, 'utf8')).examples.map((e) => e.example)

before(async () => {
  store = await openTestStorage({ path: join(dir, 'ch') })
  storage = store.storage
  await migrate(storage, { retentionDays: 30 })
})
after(async () => {
  await store?.close()
  rmSync(dir, { recursive: true, force: true })
})

test('each project exports into its own dataset and is deduplicated against its own examples only', async () => {
  const exporter = createDatasetExporter(storage, { ...loadConfig({ SIEVE_DATA_DIR: dataDir }), sections: { checks: checksSection } })
  const shop = await failing('shop')
  const [first, second] = [await failing('support'), await failing('support')]

  const a = await exporter.exportTraces({ projectId: 'shop', traceIds: [shop] })
  assert.deepEqual({ exported: a.exported, skipped: a.skipped }, { exported: 1, skipped: [] })
  assert.equal(a.destination, join(dataDir, 'datasets', 'shop', 'golden.jsonl'))
  const shopId = examplesIn(a.destination)[0]!.id

  // The same words in another project: not a duplicate of shop's example, and shop's id is never named.
  const b = await exporter.exportTraces({ projectId: 'support', traceIds: [first] })
  assert.deepEqual({ exported: b.exported, skipped: b.skipped }, { exported: 1, skipped: [] })
  assert.equal(b.destination, join(dataDir, 'datasets', 'support', 'golden.jsonl'))
  const supportId = examplesIn(b.destination)[0]!.id
  const c = await exporter.exportTraces({ projectId: 'support', traceIds: [second] })
  assert.equal(c.exported, 0)
  assert.deepEqual(c.skipped, [{ traceId: second, reason: `same input as ${supportId}, already in the dataset` }])
  assert.ok(!JSON.stringify([b, c]).includes(shopId), "shop's example id is never shown to support")

  assert.deepEqual(
    examplesIn(a.destination).map((e) => [e.source.projectId, e.source.traceId]),
    [['shop', shop]],
  )
  assert.deepEqual(
    examplesIn(b.destination).map((e) => [e.source.projectId, e.source.traceId]),
    [['support', first]],
  )
  assert.equal(existsSync(join(dataDir, 'datasets', 'golden.jsonl')), false, 'no dataset shared by all projects')
})

test('a project id that looks like a path stays in a folder of its own under datasets/', async () => {
  const exporter = createDatasetExporter(storage, { ...loadConfig({ SIEVE_DATA_DIR: dataDir }), sections: { checks: checksSection } })
  for (const projectId of ['..', '../x', '/', 'ünï']) {
    const traceId = await failing(projectId)
    const outcome = await exporter.exportTraces({ projectId, traceIds: [traceId] })
    assert.equal(outcome.exported, 1, projectId)
    const [folder, file, ...rest] = relative(join(dataDir, 'datasets'), outcome.destination).split('/')
    assert.deepEqual(rest, [], `${projectId} → ${outcome.destination}`)
    assert.equal(file, 'golden.jsonl')
    assert.ok(folder && !folder.startsWith('.') && !folder.includes('/'), `${projectId} → ${outcome.destination}`)
    assert.deepEqual(
      examplesIn(outcome.destination).map((e) => e.source.projectId),
      [projectId],
    )
  }
  await assert.rejects(exporter.exportTraces({ projectId: '', traceIds: ['0'.repeat(32)] }), /project id is empty/)
  assert.equal(existsSync(join(dataDir, 'golden.jsonl')), false)
  assert.equal(existsSync(join(dir, 'x')), false)
})
