import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { createStorage, insertSpans, migrate } from '@sieve/core'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'

const root = fileURLToPath(new URL('../../', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'sieve-score-cli-'))
const configFile = join(dataDir, 'sieve.yaml')
after(() => rmSync(dataDir, { recursive: true, force: true }))

const refund = scenarios.refundOutsidePolicy()
const spans = refund.spans('default')
const traceId = spans[0]!.traceId

before(async () => {
  // The trace as the ingester would have stored it; closed again before the CLI opens the same engine.
  const storage = await createStorage({ kind: 'embedded', path: join(dataDir, 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  await insertSpans(storage, spans)
  await storage.close()
  writeFileSync(configFile, JSON.stringify({ checks: checksSection }))
})

async function sieve(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, SIEVE_DATA_DIR: dataDir, SIEVE_CONFIG_FILE: configFile, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (c) => {
    out += c
  })
  child.stderr.on('data', (c) => {
    out += c
  })
  const [code] = await once(child, 'exit')
  return { code: code as number | null, out }
}

test('sieve score re-scores a stored trace, prints what failed and where, and exits 1 on a failure', async () => {
  const { code, out } = await sieve(['score', '--trace', traceId.toUpperCase()])
  assert.equal(code, 1, out)
  assert.match(out, new RegExp(`trace ${traceId} \\(project default, 6 spans, complete\\)`))
  assert.match(out, /profile support: 16 passed, 1 failed, 0 not measured or errored, 2 not applicable/)
  assert.match(out, new RegExp(`FAIL  prohibited_tools .* prohibited tool process_refund called in span ${refund.spanId('execute_tool process_refund')}`))
  assert.match(out, /stored 17 scores/)
})

test('sieve score names a trace it cannot find and exits 2', async () => {
  const { code, out } = await sieve(['score', '--trace', '0'.repeat(32)])
  assert.equal(code, 2)
  assert.match(out, /no trace 0{32} in project default/)
  assert.equal((await sieve(['score', '--trace', 'nope'])).code, 2)
})

test('sieve checks lists the checks of each agent with parameters; a bad section is a config error', async () => {
  const { code, out } = await sieve(['checks'])
  assert.equal(code, 0, out)
  assert.match(out, /agent 'support'\n/)
  assert.match(out, /prohibited_tools\s+v2\s+[0-9a-f]{16}\s+\{"tools":\[\{"name":"process_refund"\}\],"scope":"trace"\}/)
  const bad = join(dataDir, 'bad.yaml')
  writeFileSync(bad, 'checks:\n  defaults:\n    tool_loop: { maxRepeats: 0 }\n')
  const failed = await sieve(['checks'], { SIEVE_CONFIG_FILE: bad })
  assert.equal(failed.code, 2)
  assert.match(failed.out, /checks\.defaults\.tool_loop\.maxRepeats: Too small/)
})
