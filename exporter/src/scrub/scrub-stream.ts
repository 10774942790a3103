import type { Readable, Writable } from 'node:stream'
import type { Scrubber } from './scrubber.js'

export type StreamFormat = 'jsonl' | 'text' | 'auto'

export interface StreamReport {
  format: 'jsonl' | 'text'
  lines: number
  /** JSONL lines that were not JSON: `line N: message`. They are not written. */
  problems: string[]
}

/**
 * Lines are scrubbed in batches (see Scrubber.scrubEach) of up to this many characters, or fewer
 * when the input pauses for IDLE_MS: a steady stream is scrubbed at batch speed, and a slow
 * producer (`tail -f … | sieve scrub`) still sees each line come out as soon as it is quiet.
 */
export const BATCH_CHARS = 256 * 1024
const IDLE_MS = 20

/**
 * Scrubs a stream line by line. JSONL: each line is one example (its own placeholder scope), every
 * string in it scrubbed. Text: the whole stream is one example, so a name keeps its placeholder
 * from one line to the next. `auto` takes JSONL when the first non-empty line parses as JSON.
 * Lines end at '\n', '\r\n' or a lone '\r', as node:readline reads them.
 */
export async function scrubStream(scrubber: Scrubber, input: Readable, output: Writable, format: StreamFormat = 'auto'): Promise<StreamReport> {
  const report: StreamReport = { format: format === 'auto' ? 'text' : format, lines: 0, problems: [] }
  let decided = format !== 'auto'
  const textScope = scrubber.newExample()
  let batch: string[] = []
  let batchChars = 0

  async function flush(): Promise<void> {
    const lines = batch
    batch = []
    batchChars = 0
    // Parsed first, so that the whole batch is scrubbed together.
    const values: unknown[] = []
    const texts: string[] = []
    const kinds: ('json' | 'text' | 'skip')[] = []
    for (const line of lines) {
      report.lines++
      if (!decided && line.trim()) {
        report.format = parses(line) ? 'jsonl' : 'text'
        decided = true
      }
      if (report.format === 'jsonl' && line.trim()) {
        try {
          values.push(JSON.parse(line))
          kinds.push('json')
        } catch (err) {
          report.problems.push(`line ${report.lines}: not valid JSON (${(err as Error).message})`)
          kinds.push('skip')
        }
      } else {
        texts.push(line)
        kinds.push('text')
      }
    }
    const scrubbedValues = scrubber.scrubEach(values)
    const scrubbedTexts = scrubber.scrubEach(texts, textScope)
    let out = ''
    let v = 0
    let t = 0
    for (const kind of kinds) {
      if (kind === 'json') out += JSON.stringify(scrubbedValues[v++]) + '\n'
      else if (kind === 'text') out += scrubbedTexts[t++] + '\n'
    }
    if (out && !output.write(out)) await new Promise((resolve) => output.once('drain', resolve))
  }

  input.setEncoding('utf8')
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<string>
  let rest = ''
  let next = chunks.next()
  for (;;) {
    const result = batch.length ? await orIdle(next, IDLE_MS) : await next
    if (result === IDLE) {
      await flush()
      continue
    }
    if (result.done) break
    next = chunks.next()
    const taken = takeLines(rest + result.value, false)
    rest = taken.rest
    for (const line of taken.lines) {
      batch.push(line)
      batchChars += line.length
    }
    if (batchChars >= BATCH_CHARS) await flush()
  }
  batch.push(...takeLines(rest, true).lines)
  await flush()
  return report
}

const IDLE = Symbol('idle')

/** `pending`, or IDLE when it takes longer than `ms`. */
async function orIdle<T>(pending: Promise<T>, ms: number): Promise<T | typeof IDLE> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([pending, new Promise<typeof IDLE>((resolve) => (timer = setTimeout(resolve, ms, IDLE)))])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The complete lines in `buffer` and what follows the last of them, split as node:readline splits:
 * at '\n', '\r\n' or a lone '\r'. Unless the input is over, text after the last '\n' waits for the
 * next chunk, so that a '\r' at the end of this one may still be the first half of '\r\n'.
 */
function takeLines(buffer: string, final: boolean): { lines: string[]; rest: string } {
  const lines = buffer.split('\n')
  let rest = lines.pop()!
  if (final) {
    if (rest) lines.push(rest)
    rest = ''
  }
  if (!buffer.includes('\r')) return { lines, rest }
  return { lines: lines.flatMap((line) => (line.endsWith('\r') ? line.slice(0, -1) : line).split('\r')), rest }
}

function parses(line: string): boolean {
  try {
    JSON.parse(line)
    return /^\s*[[{"]/.test(line)
  } catch {
    return false
  }
}
