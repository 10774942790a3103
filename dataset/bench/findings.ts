import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { builtInDetectors, detectPii, TextScan, type Detector } from '@sieve/pii'
import { createScrubber } from '../src/index.js'
import { benchExample, corpus, sentences } from './bench-text.js'
import { datasetsDir } from './presidio.js'

/**
 * Every finding of every detector, the settled findings and the scrubber's output, printed for the
 * text the benchmarks and tests run on: a change made for speed must leave this output unchanged.
 * Run it on the code before and after the change and compare the two files:
 *
 *   node --conditions=sieve-source --import tsx dataset/bench/findings.ts > after.txt
 *
 * Inputs: both presidio-research files, the corpus, the bench's examples, and variants of each
 * sentence and corpus line (other case, words on separate lines, joined pairs, decomposed accents)
 * that reach edges the texts alone may not.
 */
const small = (JSON.parse(readFileSync(join(datasetsDir(), 'pii/presidio-research/generated_small.json'), 'utf8')) as { full_text: string }[]).map(
  (r) => r.full_text,
)
const examples = Array.from({ length: 3000 }, (_, i) => benchExample(i))

const texts = new Set<string>()
function collect(value: unknown): void {
  if (typeof value === 'string') texts.add(value)
  else if (Array.isArray(value)) value.forEach(collect)
  else if (value && typeof value === 'object') Object.values(value).forEach(collect)
}
examples.forEach(collect)
const lines = [...sentences, ...small, ...corpus]
for (const t of lines) {
  for (const variant of [
    t,
    t.toLowerCase(),
    t.toUpperCase(),
    t.replace(/ /g, '\n'),
    t.replace(/, /g, ',\n'),
    t.replace(/\./g, ''),
    `> ${t}`,
    t.normalize('NFD'),
  ]) {
    texts.add(variant)
  }
}
for (let i = 0; i < lines.length; i++) {
  texts.add(`${lines[i]}\n${lines[(i * 13 + 7) % lines.length]}`)
  texts.add(`${lines[i]} ${lines[(i * 17 + 3) % lines.length]}`)
  texts.add(`${lines[i]}${lines[(i * 19 + 5) % lines.length]}`)
}

const detectors = Object.entries(builtInDetectors) as [string, Detector][]
const span = (f: { type: string; start: number; end: number }) => `${f.type}:${f.start}-${f.end}`
const out: string[] = []
for (const text of texts) {
  out.push(JSON.stringify(text))
  for (const [type, detector] of detectors) {
    const found = detector.find(text, new TextScan(text)).map(span).sort()
    if (found.length) out.push(`  ${type} ${found.join(' ')}`)
  }
  out.push(
    `  => ${detectPii(
      text,
      detectors.map(([, d]) => d),
    )
      .map(span)
      .join(' ')}`,
  )
}
const plain = createScrubber()
const keyed = createScrubber({ secret: 'a-key-of-at-least-sixteen-characters' })
for (const e of examples) out.push(JSON.stringify(plain.scrub(e)), JSON.stringify(keyed.scrub(e)))
const scope = plain.newExample()
for (const t of lines) out.push(plain.scrubText(t, scope))

process.stdout.write(`${out.join('\n')}\n`)
process.stderr.write(`${texts.size} texts, sha256 ${createHash('sha256').update(out.join('\n')).digest('hex').slice(0, 16)}\n`)
