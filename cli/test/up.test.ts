import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'sieve-up-'))
after(() => rmSync(dataDir, { recursive: true, force: true }))

interface Sieve {
  child: ChildProcess
  url: string
  output: () => string
}

/** Runs the real CLI as a child process, as a user would. */
function sieve(args: string[], env: Record<string, string>): { child: ChildProcess; output: () => string } {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', ...args], {
    cwd: root,
    // The embedded default: `npm test` exports KAFKA_BROKERS for the Kafka tests; empty means unset.
    env: { ...process.env, SIEVE_PORT: '0', SIEVE_DATA_DIR: dataDir, KAFKA_BROKERS: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk) => {
    output += chunk
  })
  child.stderr!.on('data', (chunk) => {
    output += chunk
  })
  return { child, output: () => output }
}

async function up(env: Record<string, string> = {}): Promise<Sieve> {
  const { child, output } = sieve(['up'], env)
  while (!/Sieve is up/.test(output())) {
    if (child.exitCode !== null) throw new Error(`sieve up exited ${child.exitCode}:\n${output()}`)
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')])
  }
  const url = /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(output())?.[1]
  assert.ok(url, output())
  return { child, url, output }
}

async function stop(sieve: Sieve): Promise<number | null> {
  sieve.child.kill('SIGTERM')
  const [code] = await once(sieve.child, 'exit')
  return code as number | null
}

const traceId = '5b8efff798038103d269b633813fc60c'
const otlpJson = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'restart-check' } }] },
      scopeSpans: [
        {
          scope: { name: 'test' },
          spans: [
            {
              traceId,
              spanId: 'eee19b7ec3c1b174',
              name: 'invoke_agent',
              kind: 1,
              startTimeUnixNano: '1744712660000000001',
              endTimeUnixNano: '1744712661000000002',
              attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'invoke_agent' } }],
            },
          ],
        },
      ],
    },
  ],
}

describe('sieve up', () => {
  test('data written before a restart is still there after it', async () => {
    const first = await up()
    assert.match(first.output(), /No SIEVE_API_KEYS set: listening on loopback only/)
    const sent = await fetch(`${first.url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(otlpJson) })
    assert.equal(sent.status, 200, await sent.text())
    assert.equal(await stop(first), 0)

    const second = await up()
    try {
      const res = await fetch(`${second.url}/api/traces/${traceId}`)
      assert.equal(res.status, 200)
      const { trace } = (await res.json()) as { trace: { roots: { spanId: string; startTimeUnixNano: string; serviceName: string }[] } }
      assert.equal(trace.roots[0]?.spanId, 'eee19b7ec3c1b174')
      assert.equal(trace.roots[0]?.startTimeUnixNano, '1744712660000000001')
      assert.equal(trace.roots[0]?.serviceName, 'restart-check')
      assert.match(second.output(), /OTLP\/HTTP traces: http:\/\/127\.0\.0\.1:\d+\/v1\/traces/)

      const third = sieve(['up'], {})
      assert.equal((await once(third.child, 'exit'))[0], 2)
      assert.match(third.output(), /another `sieve up` \(pid \d+, http:\/\/127\.0\.0\.1:\d+\) is running with SIEVE_DATA_DIR=/)
    } finally {
      assert.equal(await stop(second), 0)
    }
  })

  test('refuses to listen beyond loopback without API keys, naming SIEVE_API_KEYS', async () => {
    const { child, output } = sieve(['up'], { SIEVE_HOST: '0.0.0.0' })
    const [code] = await once(child, 'exit')
    assert.equal(code, 2)
    assert.match(output(), /SIEVE_API_KEYS/)
  })

  test('a taken port or an unknown check stops it with exit 2, before the data directory is created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sieve-up-refused-'))
    const taken = createServer().listen(0, '127.0.0.1')
    await once(taken, 'listening')
    try {
      const port = (taken.address() as AddressInfo).port
      const busy = sieve(['up'], { SIEVE_PORT: String(port), SIEVE_DATA_DIR: join(dir, 'data') })
      assert.equal((await once(busy.child, 'exit'))[0], 2, busy.output())
      assert.match(busy.output(), new RegExp(`^sieve up: SIEVE_PORT=${port} on SIEVE_HOST=127\\.0\\.0\\.1 is taken by another process`, 'm'))

      writeFileSync(join(dir, 'sieve.yaml'), 'checks:\n  defaults:\n    no_such_check: {}\n')
      const unknown = sieve(['up'], { SIEVE_CONFIG_FILE: join(dir, 'sieve.yaml'), SIEVE_DATA_DIR: join(dir, 'data') })
      assert.equal((await once(unknown.child, 'exit'))[0], 2, unknown.output())
      assert.match(unknown.output(), /checks\.defaults\.no_such_check: unknown check \(known: trace_complete/)

      assert.deepEqual(readdirSync(dir), ['sieve.yaml'], 'no data directory, nothing migrated')
    } finally {
      taken.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('sieve migrate applies the schema and reports it up to date the second time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sieve-migrate-'))
    try {
      const first = sieve(['migrate'], { SIEVE_DATA_DIR: dir })
      assert.equal((await once(first.child, 'exit'))[0], 0)
      assert.match(first.output(), /applied: 0001_spans/)
      const second = sieve(['migrate'], { SIEVE_DATA_DIR: dir })
      assert.equal((await once(second.child, 'exit'))[0], 0)
      assert.match(second.output(), /schema up to date/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
