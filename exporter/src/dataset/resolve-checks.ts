import type { CheckDefinition } from '@sieve/scorer'
import type { DatasetContents, DatasetProblem } from './validate-dataset.js'

/**
 * Every check an example expects, resolved against the checks this Sieve has, with the same zod
 * schema its parameters are read with when the check runs: a typo in a check's name or parameters
 * is a problem with the dataset (a configuration error), never a regression of the agent.
 */
export function checkProblems(contents: DatasetContents, available: readonly CheckDefinition[]): DatasetProblem[] {
  const byName = new Map(available.map((c) => [c.name, c]))
  const problems: DatasetProblem[] = []
  for (const { line, example } of contents.examples) {
    for (const [name, params] of Object.entries(example.expected.checks)) {
      const check = byName.get(name)
      if (!check) {
        problems.push({ line, field: `expected.checks.${name}`, message: `no check named ${name} (known: ${[...byName.keys()].sort().join(', ')})` })
        continue
      }
      const parsed = check.params.safeParse(params)
      if (!parsed.success) {
        for (const issue of parsed.error.issues) {
          problems.push({ line, field: ['expected', 'checks', name, ...issue.path].join('.'), message: issue.message })
        }
      }
    }
  }
  return problems
}
