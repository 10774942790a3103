import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * The suite runs on a bare clone: no test, and nothing a test loads from test/ folders or testkit,
 * reads files from beside the repository (a `shared/` folder next to the checkout, /work/shared).
 * Data a test needs is a fixture in the repository. Benchmarks (bench/) may look outside, optionally.
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const self = fileURLToPath(import.meta.url)
const SKIP = new Set(['node_modules', '.git', 'dist', 'data', 'bench'])
const SOURCE = /\.(ts|mts|cts|js|mjs|cjs|sh)$/

/** Test files and test support: every *.test.ts, everything under a test/ folder, and testkit. */
function testFiles(dir: string, inTests: boolean, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) testFiles(path, inTests || entry.name === 'test' || relative(root, path) === 'testkit', out)
    else if (SOURCE.test(entry.name) && (inTests || entry.name.endsWith('.test.ts'))) out.push(path)
  }
  return out
}

/**
 * A path into a `shared` folder: a string literal that is `shared`, starts with `shared/`, or has a
 * `/shared` segment (`../shared/datasets`, `/work/shared`, `${repo}/../shared/x`); or a helper call
 * made for the purpose.
 */
const SHARED_PATH = /(['"`])(?:[^'"`\n]*\/)?shared(?:\/[^'"`\n]*)?\1|\bsharedFile\s*\(/g

function sharedPathReads(text: string): string[] {
  return [...text.matchAll(SHARED_PATH)].map((m) => m[0])
}

test('the pattern finds the ways a test has read shared/ from beside the checkout', () => {
  assert.deepEqual(sharedPathReads("const candidate = join(dir, 'shared', relative)"), ["'shared'"])
  assert.deepEqual(sharedPathReads("readFileSync(sharedFile('datasets/otlp/trace.json'))"), ['sharedFile('])
  assert.deepEqual(sharedPathReads('const d = `${repo}/../shared/datasets`'), ['`${repo}/../shared/datasets`'])
  assert.deepEqual(sharedPathReads("['/work/shared/datasets']"), ["'/work/shared/datasets'"])
  assert.deepEqual(sharedPathReads("const { brokers } = await sharedBrokers(); const x = 'shared-state'"), [])
})

test('no test or test support file reads from outside the repository', () => {
  const files = testFiles(root, false).filter((f) => f !== self)
  assert.ok(files.length > 50, `${files.length} files scanned`)
  assert.ok(files.some((f) => f.endsWith('otlp/test/otlp-decode.test.ts')))
  assert.ok(files.some((f) => f.endsWith('testkit/src/sieve.ts')))
  const found = files.flatMap((f) => sharedPathReads(readFileSync(f, 'utf8')).map((hit) => `${relative(root, f)}: ${hit}`))
  assert.deepEqual(found, [], 'use a fixture in the repository (e.g. testkit/fixtures/) instead')
})
