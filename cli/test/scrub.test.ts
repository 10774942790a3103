import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))

/** Runs `sieve scrub` as a user would, feeding `input` on stdin. */
async function scrub(input: string, args: string[] = [], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', 'cli/src/main.ts', 'scrub', ...args], {
    cwd: root,
    env: { ...process.env, SIEVE_SCRUB_SECRET: '', ...env },
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  child.stdin.end(input)
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)))
  return { code, stdout, stderr }
}

test('sieve scrub replaces personal data in every string of each JSONL line and keeps the order id', async () => {
  const line = { input: 'I am Jana Nováková, call +44 20 7946 0958', tool: { args: { email: 'jana@example.cz', order: 'ORD-123456' } } }
  const { code, stdout } = await scrub(`${JSON.stringify(line)}\n${JSON.stringify({ note: 'mail jana@example.cz' })}\n`)
  assert.equal(code, 0)
  const [first, second] = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  assert.deepEqual(first, { input: 'I am <PERSON_1>, call <PHONE_1>', tool: { args: { email: '<EMAIL_1>', order: 'ORD-123456' } } })
  assert.deepEqual(second, { note: 'mail <EMAIL_1>' })
})

test('sieve scrub keeps placeholders stable across lines of a text stream', async () => {
  const { code, stdout } = await scrub('Dear Oluwaseun Adeyemi,\nThanks again Oluwaseun Adeyemi, key sk-abcdefghijklmnopqrstuvwxyz123456\n')
  assert.equal(code, 0)
  assert.equal(stdout, 'Dear <PERSON_1>,\nThanks again <PERSON_1>, key <SECRET_1>\n')
})

test('sieve scrub with SIEVE_SCRUB_SECRET gives the same keyed placeholder on separate lines', async () => {
  const { stdout } = await scrub('{"a":"jana@example.cz"}\n{"b":"jana@example.cz"}\n', [], { SIEVE_SCRUB_SECRET: 'a-long-enough-secret-key' })
  const [a, b] = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l))
  assert.match(a.a, /^<EMAIL_[0-9a-f]{8}>$/)
  assert.equal(a.a, b.b)
})

test('sieve scrub names the line that is not JSON, writes the others and exits 1', async () => {
  const { code, stdout, stderr } = await scrub('{"a":"x@example.com"}\nnot json\n{"b":1}\n', ['--format', 'jsonl'])
  assert.equal(code, 1)
  assert.equal(stdout, '{"a":"<EMAIL_1>"}\n{"b":1}\n')
  assert.match(stderr, /line 2: not valid JSON/)
})

test('sieve scrub rejects an unknown format and a short secret with exit 2', async () => {
  assert.equal((await scrub('', ['--format', 'xml'])).code, 2)
  const short = await scrub('', [], { SIEVE_SCRUB_SECRET: 'short' })
  assert.equal(short.code, 2)
  assert.match(short.stderr, /scrub\.secret: must be at least 16 characters/)
})
