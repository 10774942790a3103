import assert from 'node:assert/strict'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import { test } from 'node:test'
import { createScrubber, scrubStream } from '../src/index.js'

/** Collects what scrubStream writes. */
function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough()
  let out = ''
  stream.setEncoding('utf8').on('data', (c: string) => (out += c))
  return { stream, text: () => out }
}

test('reads lines split across chunks and ended by \\n, \\r\\n or \\r, and a last line without an end', async () => {
  const input = new PassThrough()
  const output = sink()
  const done = scrubStream(createScrubber(), input, output.stream, 'text')
  for (const chunk of ['mail a@exa', 'mple.com\r', '\nsecond\rthird\n', '\nlast b@example.com']) input.write(chunk)
  input.end()
  const report = await done
  assert.equal(output.text(), 'mail <EMAIL_1>\nsecond\nthird\n\nlast <EMAIL_2>\n')
  assert.equal(report.lines, 5)
})

test('writes a line while the input stays open, once the producer pauses', { timeout: 10_000 }, async () => {
  const input = new PassThrough()
  const output = sink()
  const done = scrubStream(createScrubber(), input, output.stream, 'jsonl')
  input.write('{"to":"a@example.com"}\n')
  await once(output.stream, 'data')
  assert.equal(output.text(), '{"to":"<EMAIL_1>"}\n')
  input.end('{"to":"b@example.com"}\n')
  await done
  assert.equal(output.text(), '{"to":"<EMAIL_1>"}\n{"to":"<EMAIL_1>"}\n')
})

test('a stream larger than one batch keeps every line, in order, each JSONL line its own example', async () => {
  const lines = Array.from({ length: 6000 }, (_, i) => JSON.stringify({ i, note: `order ORD-${i} for user${i}@example.com and user${i + 1}@example.com` }))
  const input = new PassThrough()
  const output = sink()
  const done = scrubStream(createScrubber(), input, output.stream)
  // In chunks that end mid-line, some read together, some after a pause.
  const text = lines.join('\n') + '\n'
  for (let at = 0; at < text.length; at += 70_001) {
    input.write(text.slice(at, at + 70_001))
    if (at % 3 === 0) await new Promise((resolve) => setTimeout(resolve, 30))
  }
  input.end()
  const report = await done
  const out = output.text().trim().split('\n').map((l) => JSON.parse(l) as { i: number; note: string })
  assert.equal(report.lines, 6000)
  assert.deepEqual(out.map((o) => o.i), lines.map((_, i) => i))
  assert.ok(out.every((o, i) => o.note === `order ORD-${i} for <EMAIL_1> and <EMAIL_2>`))
})
