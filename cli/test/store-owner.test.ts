import assert from 'node:assert/strict'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { firstCitation, say, spawnSieve, startFakeOpenAI, until } from '@sieve/testkit'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { runSieve } from './support/run-sieve.js'

/*
 * The embedded store has one owner: while `sieve up` runs, chDB keeps every other process out of
 * its directory. Commands run then go through it, with its configuration, and answer as they do
 * with Sieve stopped.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'sieve-store-owner-'))
const configFile = join(dataDir, 'sieve.yaml')
after(() => rmSync(dataDir, { recursive: true, force: true }))

/** A CLI command as a user runs it in another shell: same data directory, and no config file unless given. */
async function sieve(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string; err: string }> {
  const run = await runSieve(args, {
    ...process.env,
    SIEVE_DATA_DIR: dataDir,
    SIEVE_CONFIG_FILE: '',
    SIEVE_API_KEYS: '',
    KAFKA_BROKERS: '',
    CLICKHOUSE_URL: '',
    ...env,
  })
  return { code: run.code, out: run.stdout, err: run.stderr }
}

const refund = scenarios.refundOutsidePolicy()
const traceId = refund.spans('default')[0]!.traceId
const examples = (file: string) =>
  readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>)
/** What two exports of the same trace share: all but the export time and what derives from it. */
const comparable = (e: Record<string, any>) => ({ ...e, source: { ...e.source, exportedAt: '' }, reviewBy: '' })

test('export, score, checks and migrate work while `sieve up` owns the store, with its configuration, as they do with it stopped', async () => {
  writeFileSync(
    configFile,
    JSON.stringify({ checks: checksSection, scorer: { quietPeriodMs: 200, tickMs: 50 }, judge: { sampling: { rate: 0 }, calibration: { minLabels: 1 } } }),
  )
  // The judge, for `sieve judge calibrate`: the running Sieve's judge settings are the ones used.
  const judge = await startFakeOpenAI({ script: (r) => say(JSON.stringify({ evidence: [firstCitation(r)], reasoning: 'r', score: 4 })) })
  const judgeEnv = { JUDGE_BASE_URL: judge.baseURL, JUDGE_MODEL: 'judge-2025-01-01' }
  const labels = join(dataDir, 'labels.jsonl')
  writeFileSync(labels, `${JSON.stringify({ traceId, rubric: 'customer-support', labels: { accuracy: 4 } })}\n`)
  const up = spawnSieve('up', { SIEVE_DATA_DIR: dataDir, SIEVE_CONFIG_FILE: configFile, KAFKA_BROKERS: '', CLICKHOUSE_URL: '', ...judgeEnv })
  let whileUp: { export: Record<string, any>; score: string; checks: string; calibrate: string }
  try {
    await until('sieve up is up', () => {
      if (up.child.exitCode !== null) throw new Error(`sieve up exited ${up.child.exitCode}:\n${up.output()}`)
      return up.output().includes('Sieve is up')
    })
    const url = /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(up.output())![1]!
    const owner = join(dataDir, 'owner.json')
    assert.equal(statSync(owner).mode & 0o777, 0o600, "the owner file (its token opens every project) is the user's alone")
    const sent = await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: refund.otlpProtobuf() })
    assert.equal(sent.status, 200)
    await until(
      'the trace is scored',
      async () => ((await (await fetch(`${url}/api/worst?check=prohibited_tools`)).json()) as { traces: unknown[] }).traces.length > 0,
    )

    // Without SIEVE_CONFIG_FILE: the running Sieve's checks decide what the example expects.
    const exported = await sieve(['export', '--out', join(dataDir, 'while-up.jsonl')])
    assert.equal(exported.code, 0, exported.out + exported.err)
    assert.match(exported.err, /through the running Sieve \(pid \d+, http:\/\/127\.0\.0\.1:\d+, config .*sieve\.yaml\)/)
    const [example] = examples(join(dataDir, 'while-up.jsonl'))
    assert.deepEqual(example!.expected.prohibited_tools, ['process_refund'], "the server's config, not an empty default")

    const scored = await sieve(['score', '--trace', traceId, '--dry-run'])
    assert.equal(scored.code, 1, scored.out + scored.err)
    assert.match(scored.out, /FAIL {2}prohibited_tools/)
    const checks = await sieve(['checks', '--agent', 'support'])
    assert.equal(checks.code, 0, checks.err)
    assert.match(checks.out, /prohibited_tools\s+v2\s+[0-9a-f]{16}\s+\{"tools":\[\{"name":"process_refund"\}\],"scope":"trace"\}/)
    const migrated = await sieve(['migrate'])
    assert.deepEqual([migrated.code, migrated.out.trim()], [0, 'schema up to date'])
    // No JUDGE_* here: the running Sieve's judge does the calibration, on the stored trace.
    const calibrated = await sieve(['judge', 'calibrate', '--labels', labels, '--json'])
    assert.equal(calibrated.code, 0, calibrated.out + calibrated.err)
    assert.deepEqual(
      JSON.parse(calibrated.out).dimensions.map((d: any) => [d.dimension, d.judge.exact]),
      [['accuracy', 1]],
    )

    const forged = await fetch(`${url}/ops/checks`, { headers: { authorization: 'Bearer not-the-token-of-the-owner-file-0000' } })
    assert.equal(forged.status, 401, 'the operations take the owner token only')
    whileUp = { export: example!, score: scored.out, checks: checks.out, calibrate: calibrated.out }
  } finally {
    up.child.kill('SIGTERM')
    await once(up.child, 'exit')
  }
  assert.equal(existsSync(join(dataDir, 'owner.json')), false, 'a clean stop removes the owner file')

  // Stopped: the same commands open the store themselves, given the same config, and say the same.
  const env = { SIEVE_CONFIG_FILE: configFile }
  const exported = await sieve(['export', '--out', join(dataDir, 'stopped.jsonl')], env)
  assert.equal(exported.code, 0, exported.out + exported.err)
  assert.match(exported.err, /on the store in .*clickhouse \(config .*sieve\.yaml\)/)
  assert.deepEqual(examples(join(dataDir, 'stopped.jsonl')).map(comparable), [comparable(whileUp.export)])
  const scored = await sieve(['score', '--trace', traceId, '--dry-run'], env)
  assert.deepEqual([scored.code, scored.out], [1, whileUp.score])
  const checks = await sieve(['checks', '--agent', 'support'], env)
  assert.equal(checks.out, whileUp.checks)
  const calibrated = await sieve(['judge', 'calibrate', '--labels', labels, '--json'], { ...env, ...judgeEnv })
  assert.equal(calibrated.code, 0, calibrated.err)
  const report = (text: string) => JSON.parse(text).dimensions
  assert.deepEqual(report(calibrated.out), report(whileUp.calibrate))
  await judge.close()
})

test('an owner file left by a process that died (kill -9), or whose pid another process now has, is ignored', async () => {
  const owner = (pid: number) =>
    JSON.stringify({ pid, url: 'http://127.0.0.1:9', token: 'x'.repeat(64), startedAt: new Date().toISOString(), version: 'sieve 0', configFile: '' })
  // A pid above any pid_max: that process is gone.
  writeFileSync(join(dataDir, 'owner.json'), owner(2 ** 22 + 17))
  const gone = await sieve(['migrate'])
  assert.equal(gone.code, 0, gone.err)
  assert.match(gone.err, /on the store in/)
  // A live pid (this test's) that does not answer at the recorded URL: not an owner either.
  writeFileSync(join(dataDir, 'owner.json'), owner(process.pid))
  const reused = await sieve(['migrate'])
  assert.equal(reused.code, 0, reused.err)
  assert.match(reused.err, /on the store in/)
})

test('from another machine: SIEVE_URL with SIEVE_OPS_TOKEN works through that Sieve; exports land in its datasets folder, never elsewhere', async () => {
  const serverDir = mkdtempSync(join(tmpdir(), 'sieve-remote-server-'))
  const clientDir = mkdtempSync(join(tmpdir(), 'sieve-remote-client-'))
  const token = 'ops-'.padEnd(40, '7')
  const serverConfig = join(serverDir, 'sieve.yaml')
  writeFileSync(serverConfig, JSON.stringify({ checks: checksSection, scorer: { quietPeriodMs: 200, tickMs: 50 } }))
  const up = spawnSieve('up', { SIEVE_DATA_DIR: serverDir, SIEVE_CONFIG_FILE: serverConfig, SIEVE_OPS_TOKEN: token, KAFKA_BROKERS: '', CLICKHOUSE_URL: '' })
  try {
    await until('sieve up is up', () => {
      if (up.child.exitCode !== null) throw new Error(`sieve up exited ${up.child.exitCode}:\n${up.output()}`)
      return up.output().includes('Sieve is up')
    })
    const url = /OTLP\/HTTP traces: (http:\/\/[^/\s]+)\/v1\/traces/.exec(up.output())![1]!
    await fetch(`${url}/v1/traces`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: refund.otlpProtobuf() })
    await until(
      'the trace is scored',
      async () => ((await (await fetch(`${url}/api/worst?check=prohibited_tools`)).json()) as { traces: unknown[] }).traces.length > 0,
    )
    // The client's own data directory holds nothing: everything comes from the server.
    const remote = { SIEVE_DATA_DIR: clientDir, SIEVE_OPS_TOKEN: token }
    const checks = await sieve(['checks', '--agent', 'support', '--url', url], remote)
    assert.equal(checks.code, 0, checks.err)
    assert.match(checks.out, /prohibited_tools\s+v2\s+[0-9a-f]{16}\s+\{"tools":\[\{"name":"process_refund"\}\],"scope":"trace"\}/)
    assert.match(checks.err, /through the Sieve at http:\/\/127\.0\.0\.1:\d+ \(SIEVE_URL\)/)

    // However --out is spelled, the file goes into the server's datasets folder of the project.
    const exported = await sieve(['export', '--out', '../../../tmp/escape.jsonl'], { ...remote, SIEVE_URL: url })
    assert.equal(exported.code, 0, exported.out + exported.err)
    const landed = join(serverDir, 'datasets', 'default', 'escape.jsonl')
    assert.match(exported.out, new RegExp(`added 1 example\\(s\\) to ${landed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`))
    assert.equal(examples(landed)[0]!.expected.prohibited_tools[0], 'process_refund')
    const badName = await sieve(['export', '--out', 'my dataset.jsonl', '--url', url], remote)
    assert.equal(badName.code, 2)
    assert.match(badName.err, /--out must end in a file name/)

    const wrongToken = await sieve(['checks', '--url', url], { SIEVE_DATA_DIR: clientDir, SIEVE_OPS_TOKEN: 'x'.repeat(40) })
    assert.equal(wrongToken.code, 1)
    assert.match(wrongToken.err, /the \/ops routes take the token/)
    assert.doesNotMatch(wrongToken.err, /\n\s+at /, 'no stack trace')
    const noToken = await sieve(['checks', '--url', url], { SIEVE_DATA_DIR: clientDir })
    assert.equal(noToken.code, 2)
    assert.match(noToken.err, /SIEVE_URL=.* needs SIEVE_OPS_TOKEN/)
  } finally {
    up.child.kill('SIGTERM')
    await once(up.child, 'exit')
    rmSync(serverDir, { recursive: true, force: true })
    rmSync(clientDir, { recursive: true, force: true })
  }
})
