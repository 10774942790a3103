import type { Readable, Writable } from 'node:stream'
import { LineSplitter } from './line-splitter.js'
import type { Scrubber } from './scrubber.js'

export type StreamFormat = 'jsonl' | 'text' | 'auto'

export interface StreamReport {
  format: 'jsonl' | 'text'
  lines: number
  /** JSONL lines that were not JSON, or nested past MAX_NESTING: `line N: message`. They are not written. */
  problems: string[]
}

/**
 * Lines are scrubbed in batches (see Scrubber.scrubEach) of up to BATCH_CHARS characters. A batch is
 * also scrubbed once the input has been quiet for IDLE_MS, and at the latest MAX_WAIT_MS after its
 * first line came in: a steady stream is scrubbed at batch speed, and a slow producer
 * (`tail -f … | sieve scrub`) sees each line come out within a tenth of a second.
 */
export const BATCH_CHARS = 256 * 1024
const IDLE_MS = 20
/**
 * Deepest arrays and objects a JSONL line may nest. JSON.parse takes thousands of levels, but the
 * scrubber walks values recursively: far past anything an example holds, short of the stack.
 */
export const MAX_NESTING = 256
const MAX_WAIT_MS = 100

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
        let value: unknown
        try {
          value = JSON.parse(line)
        } catch (err) {
          report.problems.push(`line ${report.lines}: not valid JSON (${(err as Error).message})`)
          kinds.push('skip')
          continue
        }
        if (nestedDeeperThan(value, MAX_NESTING)) {
          report.problems.push(`line ${report.lines}: nested deeper than ${MAX_NESTING} levels`)
          kinds.push('skip')
          continue
        }
        values.push(value)
        kinds.push('json')
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
      if (kind === 'json') out += `${JSON.stringify(scrubbedValues[v++])}\n`
      else if (kind === 'text') out += `${scrubbedTexts[t++]}\n`
    }
    if (out && !output.write(out)) await new Promise((resolve) => output.once('drain', resolve))
  }

  /** When the first line of the batch came in (performance.now()). */
  let oldest = 0
  function add(line: string): void {
    if (!batch.length) oldest = performance.now()
    batch.push(line)
    batchChars += line.length
  }

  input.setEncoding('utf8')
  const chunks = input[Symbol.asyncIterator]() as AsyncIterator<string>
  function nextChunk(): Promise<IteratorResult<string>> {
    const next = chunks.next()
    // An input error is thrown where the chunk is awaited. Until then (a flush may be waiting for
    // 'drain') this handler keeps it from counting as unhandled, which would end the process.
    next.catch(() => {})
    return next
  }
  const splitter = new LineSplitter()
  let next = nextChunk()
  for (;;) {
    const result = batch.length ? await orTimeout(next, Math.max(0, Math.min(IDLE_MS, oldest + MAX_WAIT_MS - performance.now()))) : await next
    if (result === TIMEOUT) {
      await flush()
      continue
    }
    if (result.done) break
    next = nextChunk()
    for (const line of splitter.push(result.value)) add(line)
    if (batchChars >= BATCH_CHARS || (batch.length && performance.now() - oldest >= MAX_WAIT_MS)) await flush()
  }
  for (const line of splitter.end()) add(line)
  await flush()
  return report
}

const TIMEOUT = Symbol('timeout')

/** `pending`, or TIMEOUT when it takes longer than `ms`. */
async function orTimeout<T>(pending: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([pending, new Promise<typeof TIMEOUT>((resolve) => (timer = setTimeout(resolve, ms, TIMEOUT)))])
  } finally {
    clearTimeout(timer)
  }
}

function parses(line: string): boolean {
  try {
    JSON.parse(line)
    return /^\s*[[{"]/.test(line)
  } catch {
    return false
  }
}

/** Whether arrays and objects in `value` nest more than `max` deep; walked with a stack of its own. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]]
  while (pending.length) {
    const [v, depth] = pending.pop()!
    if (v === null || typeof v !== 'object') continue
    if (depth >= max) return true
    for (const item of Array.isArray(v) ? v : Object.values(v)) pending.push([item, depth + 1])
  }
  return false
}
