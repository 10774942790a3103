import { formatProblem, readDataset } from '@sieve/exporter'
import { existsSync } from 'node:fs'
import { UsageError, type Command } from '../command.js'

export const datasetCommand: Command = {
  name: 'dataset',
  summary: 'Check a golden dataset file: every line against the example schema, ids unique',
  usage: 'sieve dataset validate <file>',
  options: {},
  positionals: true,
  async run({ positionals }) {
    const [action, file, ...rest] = positionals
    if (action !== 'validate' || !file || rest.length) throw new UsageError('usage: sieve dataset validate <file>')
    if (!existsSync(file)) {
      console.error(`sieve dataset: ${file} does not exist`)
      return 2
    }
    const { examples, problems } = readDataset(file)
    for (const p of problems) console.error(formatProblem(file, p))
    console.log(`${file}: ${examples.length} valid example(s), ${problems.length} problem(s)`)
    return problems.length ? 1 : 0
  },
}
