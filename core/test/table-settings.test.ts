import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import type { Storage } from '@sieve/core'
import { createStorage, insertSpans, migrate, type Span } from '@sieve/core'

// SIEVE_FSYNC (issue #19, "say what durable means"): the MergeTree settings are on the tables, and
// inserts really fsync: the engine's own counters of fsync calls (system.events) move only when on.

const dir = mkdtempSync(join(tmpdir(), 'sieve-fsync-'))
after(() => rmSync(dir, { recursive: true, force: true }))

const open = (fsync: boolean | undefined, database = 'sieve') => createStorage({ kind: 'embedded', path: dir, database, fsync })

async function settingsByTable(client: Storage): Promise<Map<string, string[]>> {
  const tables = await (
    await client.query({
      query: `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'`,
      format: 'JSONEachRow',
    })
  ).json<{ name: string; engine_full: string }>()
  return new Map(tables.map((t) => [t.name, [...t.engine_full.matchAll(/\b(\w*fsync\w*) = 1\b/g)].map((m) => m[1]!)]))
}

/** fsync calls the engine made so far on files and on directories (process-wide counters). */
async function syncs(client: Storage): Promise<{ files: number; directories: number }> {
  const rows = await (
    await client.query({ query: `SELECT event, value FROM system.events WHERE event IN ('FileSync', 'DirectorySync')`, format: 'JSONEachRow' })
  ).json<{ event: string; value: string | number }>()
  const count = (event: string) => Number(rows.find((r) => r.event === event)?.value ?? 0)
  return { files: count('FileSync'), directories: count('DirectorySync') }
}

let n = 0
function span(): Span {
  n++
  return {
    projectId: 'p',
    traceId: n.toString(16).padStart(32, '0'),
    spanId: n.toString(16).padStart(16, '0'),
    parentSpanId: '',
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

/** fsyncs of what `work` did. */
async function syncsOf(client: Storage, work: () => Promise<unknown>): Promise<{ files: number; directories: number }> {
  const before = await syncs(client)
  await work()
  const now = await syncs(client)
  return { files: now.files - before.files, directories: now.directories - before.directories }
}

/** One span insert (the raw insert on the insert connection) and one feedback insert (the client's). */
const syncsOfInserts = (client: Storage) =>
  syncsOf(client, async () => {
    await insertSpans(client, [span(), span()])
    await client.insert({ table: 'feedback', format: 'JSONEachRow', values: [{ project_id: 'p', feedback_id: `f${n}`, trace_id: 't', score: 1 }] })
  })

/** A merge of the parts `spans` holds. */
const syncsOfMerge = (client: Storage) => syncsOf(client, () => client.command({ query: 'OPTIMIZE TABLE spans FINAL' }))

const ALL_ON = ['fsync_after_insert', 'fsync_part_directory', 'min_rows_to_fsync_after_merge']

test('off (the default): no table has the fsync settings and inserts fsync nothing', async () => {
  const client = await open(undefined)
  try {
    await migrate(client, { retentionDays: 30 })
    const tables = await settingsByTable(client)
    assert.ok(tables.has('spans') && tables.has('feedback') && tables.has('progress'), [...tables.keys()].join())
    for (const [table, set] of tables) assert.deepEqual(set, [], table)
    assert.deepEqual(await syncsOfInserts(client), { files: 0, directories: 0 })
    await insertSpans(client, [span()])
    assert.equal((await syncsOfMerge(client)).files, 0)
  } finally {
    await client.close()
  }
})

test('on: opening the store sets the settings on every MergeTree table; each insert and merge fsyncs its files and directory', async () => {
  const client = await open(true)
  try {
    // No migrate(): `sieve ingester` and the other commands open storage without migrating.
    for (const [table, set] of await settingsByTable(client)) assert.deepEqual(set, ALL_ON, table)
    const cost = await syncsOfInserts(client)
    assert.ok(cost.files >= 2, `files fsynced: ${cost.files}`)
    assert.ok(cost.directories >= 2, `directories fsynced: ${cost.directories}`)
    // chDB deletes merged-away parts at once (old_parts_lifetime 0): the merged part must be on disk.
    const merge = await syncsOfMerge(client)
    assert.ok(merge.files >= 1, `files fsynced by a merge: ${merge.files}`)
  } finally {
    await client.close()
  }
})

test('off again resets them: the table metadata keeps settings, so one start with SIEVE_FSYNC=1 must not leave them on', async () => {
  const client = await open(false)
  try {
    for (const [table, set] of await settingsByTable(client)) assert.deepEqual(set, [], table)
    assert.deepEqual(await syncsOfInserts(client), { files: 0, directories: 0 })
  } finally {
    await client.close()
  }
})

test('on: tables a migration creates get the settings too', async () => {
  const client = await open(true, 'sieve_fresh')
  try {
    assert.equal((await settingsByTable(client)).size, 0)
    await migrate(client, { retentionDays: 30 })
    const tables = await settingsByTable(client)
    assert.ok(tables.has('spans'))
    for (const [table, set] of tables) assert.deepEqual(set, ALL_ON, table)
  } finally {
    await client.close()
  }
})

test('spans merges at base 20 on the embedded engine, fsync on or off; other tables keep the default', async () => {
  for (const fsync of [undefined, true]) {
    const client = await open(fsync, fsync ? 'sieve_merges_fsync' : 'sieve_merges')
    try {
      await migrate(client, { retentionDays: 30 })
      const engines = new Map(
        (
          await (
            await client.query({ query: `SELECT name, engine_full FROM system.tables WHERE database = currentDatabase()`, format: 'JSONEachRow' })
          ).json<{ name: string; engine_full: string }>()
        ).map((t) => [t.name, t.engine_full]),
      )
      assert.match(engines.get('spans')!, /\bmerge_selector_base = 20\b/)
      assert.doesNotMatch(engines.get('scores')!, /merge_selector_base/)
      // The fsync settings sit beside it.
      assert.deepEqual((await settingsByTable(client)).get('spans'), fsync ? ALL_ON : [])
    } finally {
      await client.close()
    }
  }
})
