// test:http: this file also runs against a ClickHouse server's HTTP interface (SIEVE_TEST_STORAGE=http).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, describe, test } from 'node:test'
import { startSieve, type RunningSieve } from '@sieve/testkit/sieve'
import { startSupportModel } from '../../testkit/agents/support-model.js'

const MAIN = fileURLToPath(new URL('../examples/support-agent/main.ts', import.meta.url))
let sieve: RunningSieve
// The example reads its model from OPENAI_BASE_URL and OPENAI_API_KEY, as a user's run would; here
// they point at testkit's scripted support model.
let model: Awaited<ReturnType<typeof startSupportModel>>

before(async () => {
  ;[sieve, model] = await Promise.all([startSieve(), startSupportModel()])
})
after(() => Promise.all([sieve.stop(), model.close()]))

async function runExample(...args: string[]) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...model.env, SIEVE_ENDPOINT: sieve.url }
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN, ...args], { env })
  const traceId = /trace: ([0-9a-f]{32})/.exec(stdout)?.[1]
  assert.ok(traceId, stdout)
  const res = await fetch(`${sieve.url}/api/traces/${traceId}`)
  assert.equal(res.status, 200)
  const { trace } = (await res.json()) as { trace: { roots: any[]; spanCount: number } }
  const agent = trace.roots[0]
  return {
    stdout,
    agent,
    tools: agent.children.filter((c: any) => c.attributes['gen_ai.operation.name'] === 'execute_tool').map((c: any) => c.attributes['gen_ai.tool.name']),
  }
}

test('the example imports only what a user installs: @sieve/sdk, its peer @opentelemetry/api, openai, zod', () => {
  const dir = fileURLToPath(new URL('../examples/support-agent/', import.meta.url))
  const packages = new Set<string>()
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
    for (const [, specifier] of readFileSync(join(dir, file), 'utf8').matchAll(/^import [^']*'([^']+)'/gm)) {
      if (!specifier!.startsWith('.') && !specifier!.startsWith('node:')) packages.add(specifier!)
    }
  }
  assert.deepEqual([...packages].sort(), ['@opentelemetry/api', '@sieve/sdk', 'openai', 'zod'])
})

describe('examples/support-agent, against the scripted model', () => {
  test('without OPENAI_API_KEY it says the agent needs a model, and exits 2', async () => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), SIEVE_ENDPOINT: sieve.url }
    delete env.OPENAI_API_KEY
    const failed = await promisify(execFile)(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN], { env }).then(
      () => assert.fail('the example ran without a model'),
      (err: { code: number; stderr: string }) => err,
    )
    assert.equal(failed.code, 2)
    assert.match(failed.stderr, /Set OPENAI_API_KEY .*: the agent needs a model/)
  })

  test('spans it could not deliver are reported, and it exits 1', async () => {
    // A port nothing listens on: taken from the system, then released.
    const closed = createServer().listen(0, '127.0.0.1')
    await once(closed, 'listening')
    const port = (closed.address() as AddressInfo).port
    await new Promise((resolve) => closed.close(resolve))
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...model.env, SIEVE_ENDPOINT: `http://127.0.0.1:${port}` }
    const failed = await promisify(execFile)(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN], { env }).then(
      () => assert.fail('the example exited 0 without delivering its spans'),
      (err: { code: number; stderr: string; stdout: string }) => err,
    )
    assert.equal(failed.code, 1)
    assert.match(failed.stdout, /trace: [0-9a-f]{32}/, 'the agent itself ran')
    assert.match(
      failed.stderr,
      new RegExp(`\\d+ spans could not be delivered to http://127\\.0\\.0\\.1:${port}: is Sieve running there\\? Point the example at it with SIEVE_ENDPOINT`),
    )
  })

  test('follows the refund policy: store credit for an order outside the window, traced in Sieve', async () => {
    const asked = model.requests.length
    const { agent, tools } = await runExample()
    assert.equal(model.requests.length - asked, 4, 'every model call went to OPENAI_BASE_URL')
    assert.deepEqual(tools, ['check_order_status', 'lookup_customer_history', 'create_store_credit'])
    assert.equal(agent.attributes['sieve.prompt.version'], 'refund-v3')
    assert.equal(agent.children.filter((c: any) => c.attributes['gen_ai.operation.name'] === 'chat').length, 4)
  })

  test('--broken refunds outside the policy window', async () => {
    const { agent, tools } = await runExample('--broken')
    assert.deepEqual(tools, ['check_order_status', 'lookup_customer_history', 'process_refund'])
    assert.equal(agent.attributes['sieve.prompt.version'], 'refund-v4-broken')
    const refund = agent.children.find((c: any) => c.attributes['gen_ai.tool.name'] === 'process_refund')
    assert.deepEqual(JSON.parse(refund.attributes['gen_ai.tool.call.arguments']), { order_id: 'A-1001', amount: 89.9 })
    assert.match(refund.attributes['gen_ai.tool.call.id'], /^call_/)
  })
})

test('--turns 2 is one conversation of two turns: one session, the second turn sent the first as history', async () => {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), ...model.env, SIEVE_ENDPOINT: sieve.url }
  const { stdout } = await promisify(execFile)(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN, '--turns', '2'], { env })
  const traceIds = [...stdout.matchAll(/trace: ([0-9a-f]{32})/g)].map((m) => m[1]!)
  assert.equal(traceIds.length, 2, stdout)
  const agents = await Promise.all(
    traceIds.map(async (id) => ((await (await fetch(`${sieve.url}/api/traces/${id}`)).json()) as { trace: { roots: any[] } }).trace.roots[0]),
  )
  const sessions = agents.map((a) => a.attributes['gen_ai.conversation.id'])
  assert.ok(sessions[0], 'the turn carries a session id')
  assert.equal(sessions[1], sessions[0], 'both turns are one session')
  const firstAnswer = /agent: (.*)/.exec(stdout)![1]!
  const secondInput = agents[1].children.find((c: any) => c.attributes['gen_ai.operation.name'] === 'chat').attributes['gen_ai.input.messages']
  assert.ok(secondInput.includes(firstAnswer), 'the second turn carries the first answer as history')
})
