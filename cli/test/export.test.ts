import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createStorage, insertSpans, migrate } from '@sieve/core'
import { clickhouseScoreSink, resolveChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scoring'
import { checksSection, scenarios } from '@sieve/testkit/scenarios'
import { runSieve } from './support/run-sieve.js'

/*
 * `sieve export` by feedback as a user runs it: the real CLI over a store it opens itself, the
 * example it writes read back by `sieve dataset validate`, `selected` included.
 */

const dataDir = mkdtempSync(join(tmpdir(), 'sieve-export-cli-'))
const configFile = join(dataDir, 'sieve.yaml')
after(() => rmSync(dataDir, { recursive: true, force: true }))

const trace = scenarios.refundHandledWell().trace('default')
const foreign = scenarios.refundHandledWell().trace('other')
const JUDGE = { JUDGE_MODEL: 'gpt-4o-2024-08-06', JUDGE_BASE_URL: 'http://127.0.0.1:9/v1' }

before(async () => {
  // A trace every check passed, given a thumbs down; closed again before the CLI opens the same engine.
  const storage = await createStorage({ kind: 'embedded', path: join(dataDir, 'clickhouse'), database: 'sieve' })
  await migrate(storage, { retentionDays: 30 })
  const checks = resolveChecksConfig(checksSection)
  for (const t of [trace, foreign]) {
    await insertSpans(storage, t.spans)
    await clickhouseScoreSink(storage).write(traceScoreRecords(scoreTrace(t, checks)))
  }
  await storage.insert({
    table: 'feedback',
    format: 'JSONEachRow',
    values: [
      {
        project_id: 'default',
        feedback_id: 'f1',
        trace_id: trace.traceId,
        span_id: '',
        score: 0,
        comment: 'Not helpful. Call me, Marguerite Okonkwo, on +44 20 7946 0958',
        source: 'user',
        user_id: 'u1',
      },
      {
        project_id: 'other',
        feedback_id: 'f2',
        trace_id: foreign.traceId,
        span_id: '',
        score: -1,
        comment: 'Not helpful at all',
        source: 'user',
        user_id: 'u2',
      },
    ],
  })
  await storage.close()
  writeFileSync(configFile, JSON.stringify({ checks: checksSection, judge: { rubrics: { byAgent: { support: 'customer-support' } } } }))
})

async function sieve(args: string[], env: Record<string, string> = {}): Promise<{ code: number; out: string }> {
  const run = await runSieve(args, { ...process.env, SIEVE_DATA_DIR: dataDir, SIEVE_CONFIG_FILE: configFile, JUDGE_MODEL: '', ...env })
  return { code: run.code, out: run.stdout + run.stderr }
}

test('sieve export --feedback negative --feedback-comment: a thumbs-down trace becomes an example the judge replays, and validates with why it was selected', async () => {
  const out = join(dataDir, 'feedback.jsonl')
  const exported = await sieve(['export', '--out', out, '--feedback', 'negative', '--feedback-comment', 'NOT HELPFUL'], JUDGE)
  assert.equal(exported.code, 0, exported.out)
  assert.match(exported.out, /added 1 example\(s\)/)
  assert.ok(!exported.out.includes(foreign.traceId), "another project's trace is never named")
  const example = JSON.parse(readFileSync(out, 'utf8').trim())
  assert.equal(example.source.traceId, trace.traceId)
  assert.deepEqual(example.expected, { checks: {}, judge: { rubric: 'customer-support' } })
  assert.deepEqual(example.selected, [{ by: 'feedback', feedback: { score: 0, comment: 'Not helpful. Call me, <PERSON_1>, on <PHONE_1>' } }])
  assert.ok(example.tags.includes('selected:feedback'))

  const validated = await sieve(['dataset', 'validate', out])
  assert.equal(validated.code, 0, validated.out)
  assert.match(validated.out, /1 valid example\(s\), 0 problem\(s\)/)
  const tampered = join(dataDir, 'tampered.jsonl')
  writeFileSync(tampered, `${JSON.stringify({ ...example, selected: [{ by: 'feedback', feedback: { score: 'bad' } }] })}\n`)
  const refused = await sieve(['dataset', 'validate', tampered])
  assert.equal(refused.code, 1)
  assert.match(refused.out, /tampered\.jsonl:1: selected\.0\.feedback\.score: /)
})

test('sieve export --feedback without a judge skips the trace and says why; --feedback-max needs --feedback negative', async () => {
  const out = join(dataDir, 'no-judge.jsonl')
  const skipped = await sieve(['export', '--out', out, '--feedback', 'negative'])
  assert.equal(skipped.code, 0, skipped.out)
  assert.match(skipped.out, /added 0 example\(s\)/)
  assert.match(
    skipped.out,
    new RegExp(`- trace ${trace.traceId}: selected by feedback, but no check failed and no judge rubric is configured for agent 'support'`),
  )
  const usage = await sieve(['export', '--out', out, '--feedback-max', '2'])
  assert.equal(usage.code, 2)
  assert.match(usage.out, /--feedback-max goes with --feedback negative/)
})

test('sieve export names what it cannot select by (exit 2, the known checks listed), and a repeated export says how many traces the dataset already had', async () => {
  const out = join(dataDir, 'again.jsonl')
  const unknown = await sieve(['export', '--out', out, '--failed', 'no_such_check'])
  assert.equal(unknown.code, 2, unknown.out)
  assert.match(unknown.out, /--failed no_such_check: no check or judge score has that name \(checks: .*prohibited_tools.*; or scorecard\)/)
  const first = await sieve(['export', '--out', out, '--feedback', 'negative'], JUDGE)
  assert.equal(first.code, 0, first.out)
  assert.match(first.out, /added 1 example\(s\)/)
  const again = await sieve(['export', '--out', out, '--feedback', 'negative'], JUDGE)
  assert.equal(again.code, 0, again.out)
  assert.match(again.out, /added 0 example\(s\)/)
  assert.match(again.out, /1 matching trace\(s\) already in .*again\.jsonl from earlier exports, not added again/)
})
