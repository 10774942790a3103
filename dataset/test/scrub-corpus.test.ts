import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createScrubber } from '../src/index.js'
import { nameLexicon } from '@sieve/pii'
import { readCorpus, runCorpus } from './corpus.js'

const scrubber = createScrubber()
const lines = readCorpus()
const result = runCorpus(scrubber, lines)

test('the corpus is the size the benchmark claims', () => {
  assert.ok(lines.length >= 500, `${lines.length} lines`)
  assert.ok(lines.filter((l) => l.kind === 'lookalike').length >= 150)
})

test('replaces every API key, bearer token, JWT, password, credential URL, international phone, card, IBAN, IP, email and date of birth', () => {
  const notNames = result.missed.filter((m) => !m.startsWith('name '))
  assert.deepEqual(notNames, [])
  for (const kind of ['secret', 'bearer', 'jwt', 'assignment', 'entropy', 'url-credentials', 'url-token', 'phone', 'card', 'iban', 'ip', 'email', 'dob']) {
    const [found, total] = result.recall.get(kind) ?? [0, 0]
    assert.ok(total > 0 && found === total, `${kind}: ${found}/${total}`)
  }
})

test('finds non-English names, including ones no name list holds, from context alone', () => {
  const [found, total] = result.recall.get('name')!
  assert.ok(found / total >= 0.95, `names: ${found}/${total}\n${result.missed.join('\n')}`)
  const lex = nameLexicon()
  const unknown = lines
    .filter((l) => l.kind === 'name')
    .flatMap((l) => l.pii.map((p) => p.value))
    .filter((name) => name.split(/\s+/).every((w) => !lex.firstNames.has(w.toLowerCase()) && !lex.lastNames.has(w.toLowerCase())))
  assert.ok(unknown.length >= 10, `only ${unknown.length} corpus names are absent from the lists: ${unknown.join(', ')}`)
  const missedUnknown = unknown.filter((n) => result.missed.some((m) => m.includes(JSON.stringify(n))))
  assert.ok(missedUnknown.length / unknown.length <= 0.1, `missed unlisted names: ${missedUnknown.join(', ')}`)
})

test('keeps order ids, SKUs, versions, timestamps, hashes, trace ids, UUIDs and prices', () => {
  assert.deepEqual(result.overScrubbed, [])
})
