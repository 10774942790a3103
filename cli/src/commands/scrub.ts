import { loadConfig } from '@sieve/core'
import { createScrubber, loadScrubOptions, scrubStream } from '@sieve/exporter'
import { UsageError, type Command } from '../command.js'

// Declared apart so the `description` that `sieve scrub --help` prints passes the option type check.
const format = { type: 'string', default: 'auto', description: 'auto (JSONL if the first line is JSON), jsonl, or text' } as const

export const scrubCommand: Command = {
  name: 'scrub',
  summary: 'Replace personal data and secrets in JSONL or text from stdin, writing the result to stdout',
  usage: 'sieve scrub [--format auto|jsonl|text] < in > out',
  options: { format },
  async run({ values }) {
    const format = values.format
    if (format !== 'auto' && format !== 'jsonl' && format !== 'text') throw new UsageError(`--format must be auto, jsonl or text (got '${String(format)}')`)
    const scrubber = createScrubber(loadScrubOptions(loadConfig()))
    const report = await scrubStream(scrubber, process.stdin, process.stdout, format)
    for (const problem of report.problems) console.error(`sieve scrub: ${problem}`)
    return report.problems.length ? 1 : 0
  },
}
