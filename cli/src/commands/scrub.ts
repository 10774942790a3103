import type { Command } from '../command.js'

export const scrubCommand: Command = {
  name: 'scrub',
  summary: 'Replace personal data and secrets in JSONL or text from stdin, writing the result to stdout',
  options: {
    format: { type: 'string', choices: ['auto', 'jsonl', 'text'], default: 'auto', description: 'auto: JSONL if the first line is JSON, text otherwise' },
  },
  details: [
    'Reads stdin, writes stdout: sieve scrub < in.jsonl > out.jsonl. Placeholders are numbered per example ' +
      'unless SIEVE_SCRUB_SECRET is set; the `scrub` section of the SIEVE_CONFIG_FILE file configures the rest.',
  ],
  env: ['SIEVE_CONFIG_FILE', 'SIEVE_SCRUB_SECRET'],
  exitCodes: {
    0: 'every line scrubbed',
    1: 'a JSONL line was not valid JSON or nested deeper than 256 levels (reported on stderr, left out of the output)',
    2: 'usage or configuration error',
  },
  async run({ values }) {
    const format = values.format as 'auto' | 'jsonl' | 'text'
    const [{ loadConfig }, { createScrubber, loadScrubOptions, scrubStream }] = await Promise.all([import('@sieve/core'), import('@sieve/dataset')])
    const scrubber = createScrubber(loadScrubOptions(loadConfig()))
    const report = await scrubStream(scrubber, process.stdin, process.stdout, format)
    for (const problem of report.problems) console.error(`sieve scrub: ${problem}`)
    return report.problems.length ? 1 : 0
  },
}
