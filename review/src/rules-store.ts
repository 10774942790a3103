import type { Storage } from '@sieve/core'
import { configuredRules, DEFAULT_REVIEW_RULES, reviewRulesSchema, type ReviewRules, type ReviewSection } from './config.js'

/** The rules a queue runs on: a version saved from the dashboard, else the config file's (version 0). */
export interface RulesInEffect {
  rubricId: string
  version: number
  rules: ReviewRules
  source: 'config' | 'stored'
  author: string
  savedAt: string | null
}

interface RulesRow {
  rubric_id: string
  version: number
  rules: string
  author: string
  saved_at: string
}

/**
 * Rules saved before a rule was added lack it: the default fills it in. Anything else that does
 * not parse (a row written by hand) is left for the config file's rules.
 */
function parseStored(text: string): ReviewRules | undefined {
  try {
    const parsed = reviewRulesSchema.safeParse({ ...DEFAULT_REVIEW_RULES, ...(JSON.parse(text) as object) })
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}

const inEffect = (row: RulesRow, rules: ReviewRules): RulesInEffect => ({
  rubricId: row.rubric_id,
  version: Number(row.version),
  rules,
  source: 'stored',
  author: row.author,
  savedAt: `${row.saved_at.replace(' ', 'T')}Z`,
})

/** Every version saved for a project's queues, newest first (one rubric's when given). */
export async function rulesHistory(storage: Storage, projectId: string, rubricId?: string): Promise<RulesInEffect[]> {
  const result = await storage.query({
    query: `SELECT rubric_id, version, rules, author, toString(created_at) AS saved_at FROM review_rules FINAL
            WHERE project_id = {project:String}${rubricId === undefined ? '' : ' AND rubric_id = {rubric:String}'}
            ORDER BY rubric_id, version DESC`,
    query_params: { project: projectId, rubric: rubricId ?? '' },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  return (await result.json<RulesRow>()).flatMap((row) => {
    const rules = parseStored(row.rules)
    return rules ? [inEffect(row, rules)] : []
  })
}

/** The rules in effect for each rubric of `rubricIds` in a project. */
export async function rulesInEffect(
  storage: Storage,
  section: ReviewSection,
  projectId: string,
  rubricIds: Iterable<string>,
): Promise<Map<string, RulesInEffect>> {
  const latest = new Map<string, RulesInEffect>()
  // Newest first per rubric: the first parsed row of each is in effect.
  for (const row of await rulesHistory(storage, projectId)) if (!latest.has(row.rubricId)) latest.set(row.rubricId, row)
  const found = new Map<string, RulesInEffect>()
  for (const rubricId of rubricIds) {
    found.set(
      rubricId,
      latest.get(rubricId) ?? { rubricId, version: 0, rules: configuredRules(section, rubricId), source: 'config', author: '', savedAt: null },
    )
  }
  return found
}

/**
 * Saves a new version of a queue's rules and returns its number. Two saves of one queue at the same
 * moment may both take the same number; the later one then stands for it.
 */
export async function saveRules(storage: Storage, projectId: string, rubricId: string, rules: ReviewRules, author: string): Promise<number> {
  const result = await storage.query({
    query: 'SELECT max(version) AS version FROM review_rules WHERE project_id = {project:String} AND rubric_id = {rubric:String}',
    query_params: { project: projectId, rubric: rubricId },
    format: 'JSONEachRow',
    clickhouse_settings: { output_format_json_quote_64bit_integers: 0 },
  })
  const version = Number((await result.json<{ version: number }>())[0]?.version ?? 0) + 1
  await storage.insert({
    table: 'review_rules',
    format: 'JSONEachRow',
    values: [{ project_id: projectId, rubric_id: rubricId, version, rules: JSON.stringify(rules), author }],
  })
  return version
}
