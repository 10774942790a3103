import { existsSync } from 'node:fs'
import { UsageError, type Command } from '../command.js'

export const datasetCommand: Command = {
  name: 'dataset',
  summary: 'Check a golden dataset file: every line against the example schema, ids unique, every expected check known',
  arguments: 'validate <file>',
  options: {},
  details: [
    'Prints the line and field of every problem, then a count of valid examples. Each expected check is resolved ' +
      "against the configured checks (SIEVE_CONFIG_FILE's checks section) and its parameters read with that check's schema, " +
      'as `sieve eval` does before it runs any agent.',
  ],
  env: ['SIEVE_CONFIG_FILE'],
  exitCodes: { 0: 'every line valid', 1: 'a problem was found', 2: 'usage error, the file does not exist, or the config is invalid' },
  async run({ positionals }) {
    const [action, file, ...rest] = positionals
    if (action !== 'validate' || !file || rest.length) throw new UsageError('usage: sieve dataset validate <file>')
    if (!existsSync(file)) {
      console.error(`sieve dataset: ${file} does not exist`)
      return 2
    }
    const [{ checkProblems, formatProblem, readDataset }, { loadConfig }, { loadChecksConfig }] = await Promise.all([
      import('@sieve/dataset'),
      import('@sieve/core'),
      import('@sieve/scoring'),
    ])
    const contents = readDataset(file)
    const checks = await loadChecksConfig(loadConfig().sections)
    const problems = [...contents.problems, ...checkProblems(contents, checks.available)].sort((a, b) => a.line - b.line)
    for (const p of problems) console.error(formatProblem(file, p))
    const invalid = new Set(problems.map((p) => p.line)).size
    console.log(
      `${file}: ${contents.examples.length - contents.examples.filter((e) => problems.some((p) => p.line === e.line)).length} valid example(s), ${problems.length} problem(s)${invalid ? ` on ${invalid} line(s)` : ''}`,
    )
    return problems.length ? 1 : 0
  },
}
