import { createInterface } from 'node:readline'
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
 * Scrubs a stream line by line. JSONL: each line is one example (its own placeholder scope), every
 * string in it scrubbed. Text: the whole stream is one example, so a name keeps its placeholder
 * from one line to the next. `auto` takes JSONL when the first non-empty line parses as JSON.
 */
export async function scrubStream(scrubber: Scrubber, input: Readable, output: Writable, format: StreamFormat = 'auto'): Promise<StreamReport> {
  const lines = createInterface({ input, crlfDelay: Infinity })
  const report: StreamReport = { format: format === 'auto' ? 'text' : format, lines: 0, problems: [] }
  let decided = format !== 'auto'
  const textScope = scrubber.newExample()
  for await (const line of lines) {
    report.lines++
    if (!decided && line.trim()) {
      report.format = parses(line) ? 'jsonl' : 'text'
      decided = true
    }
    let out: string
    if (report.format === 'jsonl' && line.trim()) {
      let value: unknown
      try {
        value = JSON.parse(line)
      } catch (err) {
        report.problems.push(`line ${report.lines}: not valid JSON (${(err as Error).message})`)
        continue
      }
      out = JSON.stringify(scrubber.scrub(value))
    } else out = scrubber.scrubText(line, textScope)
    if (!output.write(out + '\n')) await new Promise((resolve) => output.once('drain', resolve))
  }
  return report
}

function parses(line: string): boolean {
  try {
    JSON.parse(line)
    return /^\s*[[{"]/.test(line)
  } catch {
    return false
  }
}
