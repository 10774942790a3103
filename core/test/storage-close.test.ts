import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))

// Issue #19: `sieve up` giving up a stop called process.exit while a span insert ran in the engine,
// and the process died in libchdb (SIGSEGV) instead of exiting 1.
test('closing the embedded engine waits for the statements running on both connections, so exiting right after is clean', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sieve-close-'))
  try {
    const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'core/test/support/exit-after-close.ts', dir], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    await once(child, 'exit')
    clearTimeout(timer)
    assert.deepEqual({ code: child.exitCode, signal: child.signalCode }, { code: 1, signal: null }, output)
    const report = JSON.parse(/^\{.*\}$/m.exec(output)?.[0] ?? '{}') as { atClose?: string[]; final?: string[]; after?: string }
    // The read was in the engine when close() was called: close() waited for it.
    assert.equal(report.atClose?.[1], 'fulfilled', output)
    // The insert had ended too, or was still building its rows: then the closed connection refused it,
    // before close() resolved or after (its rows are built in turns, which may come in between).
    const refused = /^refused: .*(closed|No active connection)/
    const insert = report.atClose?.[0] ?? ''
    if (insert === 'pending') assert.match(report.final?.[0] ?? '', refused, output)
    else if (insert !== 'fulfilled') assert.match(insert, refused, output)
    assert.match(report.after ?? '', /^refused: /, output)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})
