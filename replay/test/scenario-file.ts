import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Writes a scenario to `dir/name` (as JSON, which the YAML reader takes): version 1, its id and
 * title from the file name, then `fields`. Returns the path.
 */
export function writeScenarioFile(dir: string, name: string, fields: Record<string, unknown>): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify({ version: 1, id: name.replace(/\.yaml$/, ''), title: name, ...fields }))
  return path
}
