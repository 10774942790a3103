import assert from 'node:assert/strict'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const DIR = join(dirname(fileURLToPath(import.meta.url)), '__snapshots__')

/**
 * Compares text with a committed snapshot. A missing or different snapshot fails; run with
 * UPDATE_SNAPSHOTS=1 to write them after an intended change (and bump PROMPT_VERSION).
 */
export function matchSnapshot(name: string, actual: string): void {
  const file = join(DIR, `${name}.txt`)
  if (process.env.UPDATE_SNAPSHOTS === '1') {
    mkdirSync(DIR, { recursive: true })
    writeFileSync(file, actual)
    return
  }
  assert.ok(existsSync(file), `snapshot ${file} is missing; run with UPDATE_SNAPSHOTS=1 to create it`)
  assert.equal(actual, readFileSync(file, 'utf8'), `prompt text differs from ${file}; if intended, bump PROMPT_VERSION and run with UPDATE_SNAPSHOTS=1`)
}
