import assert from 'node:assert/strict'
import { once } from 'node:events'
import { PassThrough, Readable, Writable } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { test } from 'node:test'
import { createScrubber, scrubStream } from '../src/index.js'

/** Collects what scrubStream writes. */
function sink(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough()
  let out = ''
  stream.setEncoding('utf8').on('data', (c: string) => (out += c))
  return { stream, text: () => out }
}

/** A byte stream that delivers each part as a chunk of its own, as a pipe would. */
function chunked(parts: Buffer[]): Readable {
  return Readable.from(
    (async function* () {
      for (const part of parts) {
        yield part
        await sleep(2)
      }
    })(),
    { objectMode: false },
  )
}

test('reads lines across chunk boundaries: \\r\\n split between chunks, a lone \\r, a character split between its bytes, a last line without an end', async () => {
  const cafe = Buffer.from('café')
  const parts = [
    Buffer.from('mail a@exa'),
    Buffer.from('mple.com\r'),
    Buffer.from('\nsecond\rthird\n'),
    Buffer.from('\nlast '),
    cafe.subarray(0, 4),
    Buffer.concat([cafe.subarray(4), Buffer.from(' b@example.com')]),
  ]
  const output = sink()
  const report = await scrubStream(createScrubber(), chunked(parts), output.stream, 'text')
  assert.equal(output.text(), 'mail <EMAIL_1>\nsecond\nthird\n\nlast café <EMAIL_2>\n')
  assert.equal(report.lines, 5)
})

test('input whose lines all end in a lone \\r is read line by line', async () => {
  const text = Array.from({ length: 50_000 }, (_, i) => `line ${i} user${i % 3}@example.com\r`).join('')
  const output = sink()
  const report = await scrubStream(createScrubber(), Readable.from([Buffer.from(text)], { objectMode: false }), output.stream, 'text')
  assert.equal(report.lines, 50_000)
  assert.deepEqual(output.text().split('\n').slice(0, 4), ['line 0 <EMAIL_1>', 'line 1 <EMAIL_2>', 'line 2 <EMAIL_3>', 'line 3 <EMAIL_1>'])
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

test('a producer that never pauses still sees its lines come out before it stops', { timeout: 10_000 }, async () => {
  const input = new PassThrough()
  const output = sink()
  const done = scrubStream(createScrubber(), input, output.stream, 'text')
  let writtenWhenFirstOut = -1
  output.stream.once('data', () => (writtenWhenFirstOut = written))
  let written = 0
  // A line every 5 ms for a second: never quiet for the 20 ms that flushes an idle batch.
  for (; written < 200; written++) {
    input.write(`tick ${written}\n`)
    await sleep(5)
  }
  input.end()
  await done
  assert.ok(writtenWhenFirstOut > 0 && writtenWhenFirstOut < 200, `first output after ${writtenWhenFirstOut} of 200 lines`)
  assert.equal(output.text().split('\n').length - 1, 200)
})

test('a stream larger than one batch keeps every line, in order, each JSONL line its own example, and names bad lines by their number', async () => {
  const lines = Array.from({ length: 6000 }, (_, i) => JSON.stringify({ i, note: `order ORD-${i} for user${i}@example.com and user${i + 1}@example.com` }))
  lines[4999] = '{"i": 4999, broken'
  const input = new PassThrough()
  const output = sink()
  const done = scrubStream(createScrubber(), input, output.stream)
  // In chunks that end mid-line, some read together, some after a pause.
  const text = `${lines.join('\n')}\n`
  for (let at = 0; at < text.length; at += 70_001) {
    input.write(text.slice(at, at + 70_001))
    if (at % 3 === 0) await sleep(30)
  }
  input.end()
  const report = await done
  const out = output
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { i: number; note: string })
  assert.equal(report.lines, 6000)
  assert.deepEqual(
    report.problems.map((p) => p.split(':')[0]),
    ['line 5000'],
  )
  assert.deepEqual(
    out.map((o) => o.i),
    lines.map((_, i) => i).filter((i) => i !== 4999),
  )
  assert.ok(out.every((o) => o.note === `order ORD-${o.i} for <EMAIL_1> and <EMAIL_2>`))
})

test('an input error while the output is full rejects with that error instead of ending the process', { timeout: 10_000 }, async () => {
  const input = new PassThrough()
  // Takes a write every 300 ms and holds one: a batch waits for 'drain'.
  const output = new Writable({ highWaterMark: 1, write: (_chunk, _encoding, done) => void setTimeout(done, 300) })
  const done = scrubStream(createScrubber(), input, output, 'text')
  // More than a batch at once: scrubbed as soon as it is read, before the next chunk is waited for.
  input.write('mail a@example.com, nothing else to see here\n'.repeat(8_000))
  await sleep(100)
  input.destroy(new Error('input went away'))
  await assert.rejects(done, /input went away/)
})

test('a JSONL line nested past the limit is named and left out, the lines around it scrubbed', async () => {
  const deep = (levels: number) => `${'{"x":'.repeat(levels)}"jan@example.cz"${'}'.repeat(levels)}`
  const out = sink()
  const input = [deep(5000), deep(256), '{"a":"x@example.com"}'].join('\n')
  const report = await scrubStream(createScrubber(), Readable.from([input]), out.stream, 'jsonl')
  assert.deepEqual(report.problems, ['line 1: nested deeper than 256 levels'])
  const lines = out.text().trim().split('\n')
  assert.equal(lines.length, 2)
  assert.ok(lines[0]!.endsWith(`"<EMAIL_1>"${'}'.repeat(256)}`))
  assert.equal(lines[1], '{"a":"<EMAIL_1>"}')
})
