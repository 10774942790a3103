import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { after, before, test } from 'node:test'
import { createStorage, insertSpans, migrate, type Span } from '@sieve/core'
import { firstCitation, say, startFakeOpenAI, type FakeOpenAI } from '@sieve/testkit'

const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url))
const run = promisify(execFile)
let server: FakeOpenAI
let dir: string

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sieve-calibrate-'))
  // The judge gives 4 on every dimension, quoting the first user turn shown.
  server = await startFakeOpenAI({ script: (r) => say(JSON.stringify({ evidence: [firstCitation(r)], reasoning: 'r', score: 4 })) })
})
after(() => server.close())

/**
 * The judge section: a dimension needs one label to be judged on (20 by default), so these few
 * labels show each trust rule; kappa and within-one keep their defaults.
 */
const configFile = () => {
  const path = join(dir, 'sieve.yaml')
  writeFileSync(path, 'judge:\n  calibration: { minLabels: 1 }\n')
  return path
}

function sieve(args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['--conditions=sieve-source', '--import', 'tsx', MAIN, ...args], {
    env: {
      PATH: process.env.PATH ?? '',
      SIEVE_DATA_DIR: dir,
      SIEVE_CONFIG_FILE: configFile(),
      JUDGE_BASE_URL: server.baseURL,
      JUDGE_MODEL: 'judge-2025-01-01',
      ...env,
    },
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e,
  )
}

const TRACE = '0af7651916cd43dd8448eb211c80319c'

/** A stored trace with one user message, for a label that names it by id. */
function storedSpan(): Span {
  return {
    projectId: 'default',
    traceId: TRACE,
    spanId: 'b7ad6b7169203331',
    parentSpanId: '',
    traceState: '',
    name: 'chat',
    kind: 'CLIENT',
    startTimeUnixNano: '1700000000000000000',
    endTimeUnixNano: '1700000001000000000',
    status: { code: 'OK', message: '' },
    flags: 0,
    serviceName: 'bot',
    scope: { name: 't', version: '', attributes: {} },
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'm-2025-01-01',
      'gen_ai.input.messages': JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'hello' }] }]),
      'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: 'hi' }] }]),
    },
    resource: {},
    events: [],
    links: [],
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  }
}

test('sieve judge calibrate prints per-dimension agreement, names untrusted dimensions and stores them', async () => {
  const chPath = join(dir, 'clickhouse')
  const seed = await createStorage({ kind: 'embedded', path: chPath, database: 'sieve' })
  await migrate(seed, { retentionDays: 30 })
  await insertSpans(seed, [storedSpan()])
  await seed.close()

  const labels = join(dir, 'labels.jsonl')
  const transcript = [
    { role: 'user', text: 'hello' },
    { role: 'assistant', text: 'hi' },
  ]
  writeFileSync(
    labels,
    [
      { rubric: 'generic', traceId: TRACE, labels: { groundedness: 4, communication: 2 } },
      { rubric: 'generic', transcript, labels: { groundedness: 3, communication: 2 }, secondLabels: { groundedness: 3 } },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
  )
  const out = join(dir, 'report.json')
  const { code, stdout, stderr } = await sieve(['judge', 'calibrate', '--labels', labels, '--out', out])
  assert.equal(code, 0, stderr)
  // The judge answers 4 whatever it reads: within one of every groundedness label, and no better than chance (kappa 0).
  assert.match(
    stdout,
    /generic\.groundedness\s+2\s+50\.0%\s+100\.0%\s+34\.2-100\.0%\s+0\.000\s+0\.000\s+100\.0%\s+100\.0%\s+1\.000\s+1\.000\s+0\s+UNTRUSTED: weighted kappa 0\.000 under 0\.6$/m,
  )
  assert.match(
    stdout,
    /generic\.communication\s+2\s+0\.0%\s+0\.0%\s+0\.0-65\.8%\s+0\.000\s+0\.000\s+-\s+-\s+-\s+-\s+0\s+UNTRUSTED: within-one agreement 0\.0% under 85\.0%; weighted kappa 0\.000 under 0\.6$/m,
  )
  assert.match(stdout, /2 untrusted dimension\(s\): generic\.groundedness, generic\.communication/)
  const report = JSON.parse(readFileSync(out, 'utf8'))
  assert.deepEqual([report.threshold, report.minKappa, report.minLabels], [0.85, 0.6, 1])
  assert.deepEqual(
    report.dimensions.map((d: { dimension: string; trusted: boolean; failed: Array<{ rule: string }> }) => [
      d.dimension,
      d.trusted,
      d.failed.map((f) => f.rule),
    ]),
    [
      ['groundedness', false, ['minKappa']],
      ['communication', false, ['threshold', 'minKappa']],
    ],
  )
  // The stored trace was read from storage and shown to the judge.
  assert.ok(server.requests.some((r) => r.body.messages[1].content.includes('[turn 1 | span b7ad6b7169203331 | user]')))

  const storage = await createStorage({ kind: 'embedded', path: chPath, database: 'sieve' })
  try {
    const rows = await (
      await storage.query({
        query: `SELECT scorer_name, scorer_version, value, passed, evaluation_label FROM scores FINAL WHERE kind = 'calibration' ORDER BY scorer_name`,
        format: 'JSONEachRow',
      })
    ).json()
    assert.deepEqual(rows, [
      { scorer_name: 'generic.communication', scorer_version: '1.0.0+prompt.3', value: 0, passed: 0, evaluation_label: 'untrusted' },
      { scorer_name: 'generic.groundedness', scorer_version: '1.0.0+prompt.3', value: 1, passed: 0, evaluation_label: 'untrusted' },
    ])
  } finally {
    await storage.close()
  }
})

test('sieve judge calibrate refuses an alias judge model with exit code 2', async () => {
  const { code, stderr } = await sieve(['judge', 'calibrate', '--from-annotations'], { JUDGE_MODEL: 'gpt-4o' })
  assert.equal(code, 2)
  assert.match(stderr, /CONFIG_INVALID: judge model 'gpt-4o' is an alias/)
})

test('sieve judge calibrate reports a bad labels line and exits 2', async () => {
  const labels = join(dir, 'bad.jsonl')
  writeFileSync(labels, '{"rubric":"generic","transcript":[{"role":"user","text":"x"}],"labels":{"nope":3}}\n')
  const { code, stderr } = await sieve(['judge', 'calibrate', '--labels', labels, '--dry-run'])
  assert.equal(code, 2)
  assert.match(stderr, /rubric 'generic' has no dimension 'nope'/)
})

test('sieve judge calibrate --from-annotations calibrates on annotations stored as feedback', async () => {
  const chPath = join(dir, 'clickhouse')
  const seed = await createStorage({ kind: 'embedded', path: chPath, database: 'sieve' })
  await migrate(seed, { retentionDays: 30 })
  await insertSpans(seed, [storedSpan()])
  const annotation = (id: string, dimension: string, score: number, user: string) => ({
    project_id: 'default',
    feedback_id: id,
    trace_id: TRACE,
    span_id: '',
    score,
    comment: '',
    source: 'annotator',
    user_id: user,
    attributes: { rubric: 'generic', dimension },
  })
  await seed.insert({
    table: 'feedback',
    values: [annotation('a1', 'goal_completion', 4, 'ann'), annotation('a2', 'goal_completion', 3, 'bea')],
    format: 'JSONEachRow',
  })
  await seed.close()
  const { code, stdout, stderr } = await sieve(['judge', 'calibrate', '--from-annotations'])
  assert.equal(code, 0, stderr)
  assert.match(stdout, /generic\.goal_completion\s+1\s+100\.0%\s+100\.0%\s+20\.7-100\.0%\s+1\.000\s+1\.000\s+0\.0%\s+100\.0%\s+0\.000\s+0\.000\s+0\s+trusted$/m)
})

test('with SIEVE_API_KEYS, labels naming no project are refused (no key reads project default) unless --project names one a key reads', async () => {
  const chPath = join(dir, 'clickhouse')
  const labels = join(dir, 'inline.jsonl')
  writeFileSync(
    labels,
    `${JSON.stringify({
      rubric: 'generic',
      transcript: [
        { role: 'user', text: 'hello' },
        { role: 'assistant', text: 'hi' },
      ],
      labels: { communication: 4 },
    })}\n`,
  )
  const keys = { SIEVE_API_KEYS: 'acme-key:acme' }
  const refused = await sieve(['judge', 'calibrate', '--labels', labels], keys)
  assert.equal(refused.code, 2, refused.stdout)
  assert.match(
    refused.stderr,
    /no key in SIEVE_API_KEYS reads project default, so the calibration stored there would be seen by nobody: labels without a projectId go to project default; give --project <id> or a projectId on each label \(projects with a key: acme\)/,
  )
  const elsewhere = await sieve(['judge', 'calibrate', '--labels', labels, '--project', 'globex'], keys)
  assert.equal(elsewhere.code, 2, elsewhere.stdout)
  assert.match(elsewhere.stderr, /no key in SIEVE_API_KEYS reads project globex/)
  const stored = await sieve(['judge', 'calibrate', '--labels', labels, '--project', 'acme'], keys)
  assert.equal(stored.code, 0, stored.stderr)
  const storage = await createStorage({ kind: 'embedded', path: chPath, database: 'sieve' })
  try {
    const rows = await (
      await storage.query({
        query: `SELECT DISTINCT project_id FROM scores FINAL WHERE kind = 'calibration' AND scorer_name = 'generic.communication' AND project_id != 'default'`,
        format: 'JSONEachRow',
      })
    ).json()
    assert.deepEqual(rows, [{ project_id: 'acme' }])
  } finally {
    await storage.close()
  }
})
