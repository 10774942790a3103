import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { parseYamlWithLines, zodProblems } from '@sieve/core'
import type { CheckDefinition } from '@sieve/scoring'
import { expectedCheckProblems } from '@sieve/dataset'
import { scenarioSchema, type Scenario } from './scenario.js'

export interface ScenarioFile {
  path: string
  scenario: Scenario
  /** The line of a field of the file (`['expect', 'checks', 'x']`), for problems found later. */
  lineOf(path: readonly PropertyKey[]): number
}

export interface ScenarioSet {
  files: string[]
  scenarios: ScenarioFile[]
  /** `FILE:LINE: field: message`, one per problem. */
  problems: string[]
  /** Hash of the files' contents: a baseline is only compared with runs of the same scenarios. */
  version: string
}

/** The scenario files a path names: a `.yaml`/`.yml` file, or every one directly inside a folder. */
function scenarioFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path]
  return readdirSync(path)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => join(path, f))
}

/** Reads and validates every scenario file under `paths`; ids must be unique across them. */
export function readScenarios(paths: readonly string[]): ScenarioSet {
  const files = paths.flatMap(scenarioFiles)
  const scenarios: ScenarioFile[] = []
  const problems: string[] = []
  const ids = new Map<string, string>()
  const hash = createHash('sha256')
  for (const path of files) {
    const text = readFileSync(path, 'utf8')
    hash.update(`${path.split('/').pop()}\0${text}\0`)
    const yaml = parseYamlWithLines(text)
    if (!yaml.ok) {
      problems.push(`${path}:${yaml.line}: not valid YAML: ${yaml.message}`)
      continue
    }
    const parsed = scenarioSchema.safeParse(yaml.value)
    if (!parsed.success) {
      const lines = zodProblems(parsed.error)
      // An unknown key is found on its own line, not on its mapping's.
      const at = (issue: (typeof parsed.error.issues)[number]) => (issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path)
      problems.push(...parsed.error.issues.map((issue, i) => `${path}:${yaml.lineOf(at(issue))}: ${lines[i]}`))
      continue
    }
    const seen = ids.get(parsed.data.id)
    if (seen) problems.push(`${path}:${yaml.lineOf(['id'])}: id: ${parsed.data.id} is also the id of ${seen}`)
    else ids.set(parsed.data.id, path)
    scenarios.push({ path, scenario: parsed.data, lineOf: yaml.lineOf })
  }
  return { files, scenarios, problems, version: hash.digest('hex').slice(0, 16) }
}

/**
 * Every check a scenario expects, resolved against the checks this Sieve has and read with its
 * parameters' schema, as `sieve eval` resolves a dataset's: a typo is a configuration error.
 */
export function scenarioCheckProblems(set: ScenarioSet, available: readonly CheckDefinition[]): string[] {
  return set.scenarios.flatMap(({ path, scenario, lineOf }) =>
    expectedCheckProblems(scenario.expect.checks, available).map((p) => {
      const field = ['expect', 'checks', ...p.path]
      return `${path}:${lineOf(field)}: ${field.join('.')}: ${p.message}`
    }),
  )
}
