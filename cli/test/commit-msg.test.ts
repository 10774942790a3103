import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const HOOK = fileURLToPath(new URL('../../.githooks/commit-msg', import.meta.url))
const dir = mkdtempSync(join(tmpdir(), 'sieve-commit-msg-'))
after(() => rmSync(dir, { recursive: true, force: true }))

/** Runs the repository's commit-msg hook on a message, as git does: the path of a file holding it. */
function hook(message: string): { ok: boolean; stderr: string } {
  const file = join(dir, 'COMMIT_EDITMSG')
  writeFileSync(file, message)
  const run = spawnSync(HOOK, [file], { encoding: 'utf8' })
  return { ok: run.status === 0, stderr: run.stderr }
}

test('the commit-msg hook takes "<part>[, <part>]: summary" with workspace and repository parts', () => {
  for (const message of [
    'collector: answer 429 before reading the body\n\nWhy.\n',
    'judge, dashboard: trust in every figure\n',
    'docs: one line\n',
    'build: lint in CI',
    'migrations: 0016\n',
    '# a comment git strips\ncli: help\n',
    "Merge branch 'kafka'\n",
  ]) {
    assert.equal(hook(message).ok, true, message)
  }
})

test('the commit-msg hook refuses an unknown part, a missing part and a long subject, saying why', () => {
  const cases: [string, RegExp][] = [
    ['tests: a topic word\n', /tests is not a part; parts are protocol, .*docs, deploy, migrations, build/],
    ['fix the collector\n', /is not "<part>\[, <part>\]: summary"/],
    ['collector:no space\n', /is not "<part>/],
    [`collector: ${'x'.repeat(70)}\n`, /the subject is 81 characters; keep it to 72/],
  ]
  for (const [message, why] of cases) {
    const { ok, stderr } = hook(message)
    assert.equal(ok, false, message)
    assert.match(stderr, why)
  }
})
