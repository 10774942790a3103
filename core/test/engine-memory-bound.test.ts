import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { createStorage, readRows } from '@sieve/core'

// The engine's memory is the one term of Sieve's memory its queue and body bounds do not cover
// (collector/README.md, Memory); SIEVE_ENGINE_MAX_MEMORY bounds it. Its own process: a file's tests
// share one engine, whose server settings are fixed when it starts.
test('the embedded engine holds to its memory bound: a statement past it fails, the store goes on', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-engine-memory-'))
  const bound = 256 * 1024 * 1024
  const storage = await createStorage({ kind: 'embedded', path: join(dir, 'clickhouse'), database: 'sieve', maxMemoryBytes: bound })
  try {
    const [setting] = await readRows<{ value: string }>(storage, "SELECT value FROM system.server_settings WHERE name = 'max_server_memory_usage'", {})
    assert.equal(Number(setting?.value), bound)
    // Grouping 20 million distinct keys needs well over 256 MiB; without the bound it runs.
    await assert.rejects(
      readRows(storage, 'SELECT number, count() FROM numbers(20000000) GROUP BY number ORDER BY number LIMIT 1', {}),
      /memory limit exceeded/i,
    )
    const [row] = await readRows<{ n: string }>(storage, 'SELECT count() AS n FROM numbers(1000)', {})
    assert.equal(Number(row?.n), 1000)
  } finally {
    await storage.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
