import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * The SDK as a user installs it: `npm pack` (which builds it), the tarball unpacked into an app's
 * node_modules, imported by plain node (no TypeScript sources, no tsx), tracing a call.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

test('the packed SDK holds its build and types, and traces an agent call from plain node', { timeout: 180_000 }, () => {
  const out = mkdtempSync(join(tmpdir(), 'sieve-sdk-pack-'))
  // Inside the repository, so the app finds the SDK's own dependencies the way an install would lay them out.
  const app = join(ROOT, 'test-artifacts', 'sdk-pack')
  rmSync(app, { recursive: true, force: true })
  try {
    execFileSync('npm', ['pack', '--pack-destination', out], { cwd: join(ROOT, 'sdk'), stdio: 'pipe' })
    const tarball = readdirSync(out).find((f) => f.endsWith('.tgz'))!
    const files = execFileSync('tar', ['-tzf', join(out, tarball)], { encoding: 'utf8' }).split('\n')
    for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/package.json', 'package/README.md']) assert.ok(files.includes(f), `${f} is packed`)
    assert.ok(!files.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/')), 'no sources or tests')

    const installed = join(app, 'node_modules', '@sieve', 'sdk')
    mkdirSync(installed, { recursive: true })
    execFileSync('tar', ['-xzf', join(out, tarball), '-C', installed, '--strip-components=1'])
    writeFileSync(
      join(app, 'app.mjs'),
      `import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { flush, init, shutdown, traceAgent, traceTool } from '@sieve/sdk'
const memory = new InMemorySpanExporter()
const result = init({ exporter: memory, serviceName: 'packed', captureContent: true })
const lookup = traceTool('lookup_order', async (id) => ({ id, status: 'delivered' }))
const answer = await traceAgent('support', { input: 'Where is A-1?' }, async () => (await lookup('A-1')).status)
await flush()
console.log(JSON.stringify({ mode: result.mode, answer, spans: memory.getFinishedSpans().map((s) => s.name).sort() }))
await shutdown()
`,
    )
    const printed = JSON.parse(execFileSync(process.execPath, [join(app, 'app.mjs')], { cwd: app, encoding: 'utf8' }))
    assert.deepEqual(printed, { mode: 'global', answer: 'delivered', spans: ['execute_tool lookup_order', 'invoke_agent support'] })
  } finally {
    rmSync(out, { recursive: true, force: true })
    rmSync(app, { recursive: true, force: true })
  }
})
