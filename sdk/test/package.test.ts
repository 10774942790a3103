import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'

/*
 * The SDK as a user installs it: `npm pack` (which builds it and bundles @sieve/protocol's build
 * into it), `npm install` of the tarball in a project outside the repository (its dependencies from
 * the registry, no workspace to fall back on), then plain node (no TypeScript sources, no tsx)
 * tracing an agent into a running Sieve.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)

/** The environment without what `npm test` exports for its own run (npm_config_*, NODE_OPTIONS): the user's shell. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_') && key !== 'NODE_OPTIONS'))
  return { ...env, ...extra }
}

let sieve: RunningSieve
const dirs: string[] = []
const tempDir = (prefix: string) => {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  dirs.push(dir)
  return dir
}

before(async () => {
  sieve = await startSieve()
})
after(async () => {
  await sieve?.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const APP = `import { exportStats, feedback, flush, init, shutdown, traceAgent, traceTool, currentTraceId } from '@sieve/sdk'
const started = init({ serviceName: 'packed-sdk', agentVersion: 'v1', promptVersion: 'p1', captureContent: true })
if (!started.ok) throw new Error(started.error.message)
const lookup = traceTool('lookup_order', async (id) => ({ id, status: 'delivered' }))
let traceId
const answer = await traceAgent('support', { sessionId: 's-1', input: 'Where is A-1?' }, async () => {
  traceId = currentTraceId()
  return (await lookup('A-1')).status
})
const rated = await feedback(traceId, { score: -1, comment: 'too short' })
await flush()
const stats = exportStats()
await shutdown()
console.log(JSON.stringify({ traceId, answer, rated: rated.ok, stats }))
`

test('the SDK tarball installs outside the repository from the registry alone and traces from plain node into a running Sieve', {
  timeout: 300_000,
}, async () => {
  const packed = tempDir('sieve-sdk-pack-')
  await run('npm', ['pack', '--pack-destination', packed], { cwd: join(ROOT, 'sdk') })
  const tarball = join(packed, readdirSync(packed).find((f) => f.endsWith('.tgz'))!)
  const { stdout: listing } = await run('tar', ['-tzf', tarball])
  const files = listing.split('\n')
  for (const f of ['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/bundled/protocol/index.js', 'package/package.json', 'package/README.md'])
    assert.ok(files.includes(f), `${f} is packed`)
  assert.ok(
    !files.some((f) => f.startsWith('package/src/') || f.startsWith('package/test/') || f.startsWith('package/scripts/')),
    'no sources, tests or scripts',
  )
  const { stdout: manifest } = await run('tar', ['-xzOf', tarball, 'package/package.json'])
  const deps = Object.keys((JSON.parse(manifest) as { dependencies: Record<string, string> }).dependencies)
  assert.deepEqual(
    deps.filter((d) => d.startsWith('@sieve/')),
    [],
    'no dependency on an unpublished workspace',
  )

  // A project of the user's, in the system's temporary folder: no node_modules above it, no workspace.
  const app = tempDir('sieve-sdk-user-')
  assert.ok(!app.startsWith(ROOT), `${app} is outside the repository`)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sdk-user', private: true, type: 'module' }))
  const api = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@opentelemetry/api/package.json'), 'utf8')) as { version: string }).version
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, `@opentelemetry/api@${api}`], { cwd: app, env: userEnv() })
  assert.deepEqual(readdirSync(join(app, 'node_modules', '@sieve')), ['sdk'], 'only the SDK itself')
  assert.ok(lstatSync(join(app, 'node_modules', '@sieve', 'sdk')).isDirectory(), 'installed, not linked')

  writeFileSync(join(app, 'app.mjs'), APP)
  const { stdout } = await run(process.execPath, ['app.mjs'], { cwd: app, env: userEnv({ SIEVE_ENDPOINT: sieve.url }) })
  const printed = JSON.parse(stdout) as { traceId: string; answer: string; rated: boolean; stats: { exported: number; dropped: number; failed: number } }
  assert.equal(printed.answer, 'delivered')
  assert.equal(printed.rated, true, 'feedback accepted')
  assert.deepEqual([printed.stats.exported, printed.stats.dropped, printed.stats.failed], [2, 0, 0])

  // A 200 from the collector means stored: the trace is readable as soon as the app has exited.
  const res = await fetch(`${sieve.url}/api/traces/${printed.traceId}`)
  assert.equal(res.status, 200, await res.clone().text())
  const { trace } = (await res.json()) as {
    trace: { roots: { name: string; attributes: Record<string, unknown>; children: { name: string; attributes: Record<string, unknown> }[] }[] }
  }
  const agent = trace.roots[0]!
  assert.equal(agent.name, 'invoke_agent support')
  assert.equal(agent.attributes['sieve.prompt.version'], 'p1')
  assert.equal(agent.attributes['gen_ai.conversation.id'], 's-1')
  assert.deepEqual(
    agent.children.map((c) => [c.name, c.attributes['gen_ai.tool.call.arguments']]),
    [['execute_tool lookup_order', 'A-1']],
  )
  const stored = await (
    await sieve.storage.query({
      query: 'SELECT score, comment FROM feedback WHERE trace_id = {id:String}',
      query_params: { id: printed.traceId },
      format: 'JSONEachRow',
    })
  ).json<{ score: number; comment: string }>()
  assert.deepEqual(stored, [{ score: -1, comment: 'too short' }])
})
