import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, test } from 'node:test'
import { say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const run = promisify(execFile)
let server: FakeOpenAI
let dir: string

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-calibrate-'))
  // The judge gives 4 on every dimension, citing the first turn.
  server = await startFakeOpenAI({ script: () => say(JSON.stringify({ evidence: [{ turn: 1, span_id: 'turn-1', quote: 'q' }], reasoning: 'r', score: 4 })) })
})
after(() => server.close())

function sieve(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN, ...args], {
    env: { PATH: process.env.PATH ?? '', SIEVE_DATA_DIR: dir, JUDGE_BASE_URL: server.baseURL, JUDGE_MODEL: 'judge-2025-01-01', ...env },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  )
}

test('sieve judge calibrate prints per-dimension agreement and names untrusted dimensions', async () => {
  const labels = join(dir, 'labels.jsonl')
  const transcript = [{ role: 'user', text: 'hello' }, { role: 'assistant', text: 'hi' }]
  writeFileSync(
    labels,
    [
      { rubric: 'generic', transcript, labels: { groundedness: 4, communication: 2 } },
      { rubric: 'generic', transcript, labels: { groundedness: 3, communication: 2 }, secondLabels: { groundedness: 3 } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
  )
  const out = join(dir, 'report.json')
  const { code, stdout } = await sieve(['judge', 'calibrate', '--labels', labels, '--out', out])
  assert.equal(code, 0)
  assert.match(stdout, /generic\.groundedness\s+2\s+50\.0%\s+100\.0%\s+0\.000\s+100\.0%\s+100\.0%\s+1\.000\s+0\s+trusted/)
  assert.match(stdout, /generic\.communication\s+2\s+0\.0%\s+0\.0%\s+0\.000\s+-\s+-\s+-\s+0\s+UNTRUSTED/)
  assert.match(stdout, /1 untrusted dimension\(s\): generic\.communication/)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.deepEqual(report.dimensions.map((d: { dimension: string; trusted: boolean }) => [d.dimension, d.trusted]), [['groundedness', true], ['communication', false]])
})

test('sieve judge calibrate refuses an alias judge model with exit code 2', async () => {
  const { code, stderr } = await sieve(['judge', 'calibrate', '--labels', 'x.jsonl'], { JUDGE_MODEL: 'gpt-4o' })
  assert.equal(code, 2)
  assert.match(stderr, /CONFIG_INVALID: judge model 'gpt-4o' is an alias/)
})

test('sieve judge calibrate reports a bad labels line and exits 2', async () => {
  const labels = join(dir, 'bad.jsonl')
  writeFileSync(labels, '{"rubric":"generic","transcript":[{"role":"user","text":"x"}],"labels":{"nope":3}}\n')
  const { code, stderr } = await sieve(['judge', 'calibrate', '--labels', labels])
  assert.equal(code, 2)
  assert.match(stderr, /rubric 'generic' has no dimension 'nope'/)
})
