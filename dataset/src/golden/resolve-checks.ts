import type { CheckDefinition } from '@sieve/scoring'
import type { DatasetContents, DatasetProblem } from './validate-dataset.js'

/**
 * Every check an example expects, resolved against the checks this Sieve has, with the same zod
 * schema its parameters are read with when the check runs: a typo in a check's name or parameters
 * is a problem with the dataset (a configuration error), never a regression of the agent.
 */
export function checkProblems(contents: DatasetContents, available: readonly CheckDefinition[]): DatasetProblem[] {
  return contents.examples.flatMap(({ line, example }) =>
    expectedCheckProblems(example.expected.checks, available).map((p) => ({ line, field: ['expected', 'checks', ...p.path].join('.'), message: p.message })),
  )
}

/** The same for one map of expected checks (check name → parameters); each path starts at the check's name. */
export function expectedCheckProblems(
  checks: Readonly<Record<string, unknown>>,
  available: readonly CheckDefinition[],
): { path: PropertyKey[]; message: string }[] {
  const byName = new Map(available.map((c) => [c.name, c]))
  return Object.entries(checks).flatMap(([name, params]) => {
    const check = byName.get(name)
    if (!check) return [{ path: [name], message: `no check named ${name} (known: ${[...byName.keys()].sort().join(', ')})` }]
    const parsed = check.params.safeParse(params)
    return parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: [name, ...issue.path], message: issue.message }))
  })
}
