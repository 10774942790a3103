import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * Each table has one owner: the module whose typed functions every other part calls to read or
 * write it (ARCHITECTURE.md, "Tables"). Shipped code naming a table in SQL (`FROM`, `JOIN`,
 * `INSERT INTO`, `ALTER TABLE`, an insert's `table:`) outside its owner fails here; a query that
 * joins tables lives with its main table's owner, listed in JOINED for the others it names.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const STORAGE = 'core/src/storage/'

/** Table → the files (or folder, ending in /) holding its SQL. */
export const OWNERS: Record<string, readonly string[]> = {
  schema_migrations: [STORAGE],
  spans: [STORAGE],
  traces: [STORAGE],
  span_log_events: [STORAGE],
  dead_letters: [STORAGE],
  progress: [STORAGE],
  insert_intents: [STORAGE],
  feedback: [STORAGE],
  score_latest: [STORAGE],
  score_changes: [STORAGE],
  quality_5m: [STORAGE],
  quality_1h: [STORAGE],
  trace_quality: [STORAGE],
  scores: ['scoring/src/scores/'],
  review_queue: ['review/src/queue-store.ts', 'review/src/queue-items.ts'],
  review_skips: ['review/src/review-skips.ts'],
  review_rules: ['review/src/rules-store.ts'],
  calibration_history: ['review/src/calibration/history.ts'],
  judge_budget: ['judge/src/shared-budget.ts'],
  exports: ['dataset/src/export/'],
}

/** File → tables it names only inside a query whose main table it owns. */
export const JOINED: Record<string, readonly string[]> = {
  // The scorer's recovery: spans arrived since a time whose traces have no scores yet.
  'core/src/storage/arrived-since.ts': ['scores'],
  // A queue's items with who labelled them and who skipped them; the items nobody labelled.
  'review/src/queue-items.ts': ['feedback', 'review_skips'],
  'review/src/queue-store.ts': ['feedback'],
  // Export's selection of scored traces: not yet in the dataset, with matching feedback.
  'scoring/src/scores/export-selection.ts': ['exports', 'feedback'],
}

const SQL_NAMES = [
  /\b(?:FROM|JOIN|INSERT INTO|ALTER TABLE|OPTIMIZE TABLE|TRUNCATE TABLE)\s+([a-z_0-9]+)\b/g,
  /\.insert\(\s*\{\s*table:\s*['"`]([a-z_0-9]+)['"`]/g,
  /\binsertRows\(\s*['"`]([a-z_0-9]+)['"`]/g,
  // A table chosen at run time, `FROM ${hourly ? 'quality_1h' : 'quality_5m'}`.
  /\bFROM\s+\$\{[^}]*?'([a-z_0-9]+)'/g,
  /\bFROM\s+\$\{[^}]*?'[a-z_0-9]+'\s*:\s*'([a-z_0-9]+)'/g,
]

/** The tables a file's text names in SQL, of those in `tables`. */
export function tablesNamed(text: string, tables: ReadonlySet<string>): Set<string> {
  const found = new Set<string>()
  for (const pattern of SQL_NAMES) for (const m of text.matchAll(pattern)) if (tables.has(m[1]!)) found.add(m[1]!)
  return found
}

/** What is wrong with a file naming these tables: one line per table it may not name. */
export function ownerProblems(file: string, named: Iterable<string>): string[] {
  const problems: string[] = []
  for (const table of named) {
    const owners = OWNERS[table] ?? []
    if (owners.some((o) => (o.endsWith('/') ? file.startsWith(o) : file === o))) continue
    if (JOINED[file]?.includes(table)) continue
    problems.push(`${file} names table ${table} in SQL: call its owner's functions (${owners.join(', ') || 'no owner in cli/test/table-owners.test.ts'})`)
  }
  return problems
}

function* shippedFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* shippedFiles(path)
    else if (/\.[cm]?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path
  }
}

const migrationTables = (): Set<string> => {
  const tables = new Set<string>()
  for (const name of readdirSync(join(ROOT, 'migrations')).filter((n) => n.endsWith('.sql'))) {
    for (const m of readFileSync(join(ROOT, 'migrations', name), 'utf8').matchAll(/CREATE TABLE IF NOT EXISTS\s+([a-z_0-9]+)/g)) tables.add(m[1]!)
  }
  return tables
}

const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces

test('every table the migrations create has an owner, and every owner a table', () => {
  const created = migrationTables()
  assert.deepEqual(
    [...created].filter((t) => !OWNERS[t]),
    [],
  )
  // schema_migrations is the migration runner's, created in code before any migration runs.
  assert.deepEqual(
    Object.keys(OWNERS).filter((t) => !created.has(t) && t !== 'schema_migrations'),
    [],
  )
})

test("shipped code names a table in SQL only in the table's owner", () => {
  const tables = new Set(Object.keys(OWNERS))
  const problems: string[] = []
  // testkit is test support: it counts and seeds rows of every table.
  for (const workspace of workspaces.filter((w) => w !== 'testkit')) {
    const src = join(ROOT, workspace, 'src')
    let files: string[]
    try {
      files = [...shippedFiles(src)]
    } catch {
      continue
    }
    for (const path of files) {
      const file = relative(ROOT, path).split(sep).join('/')
      problems.push(...ownerProblems(file, tablesNamed(readFileSync(path, 'utf8'), tables)))
    }
  }
  assert.deepEqual(problems, [])
})

test('the scan finds a table named outside its owner, a joined one only where listed', () => {
  const tables = new Set(Object.keys(OWNERS))
  const query = "SELECT count() FROM scores FINAL JOIN feedback USING (trace_id); await c.insert({\n table: 'review_skips', values })"
  assert.deepEqual([...tablesNamed(query, tables)].sort(), ['feedback', 'review_skips', 'scores'])
  assert.deepEqual([...tablesNamed("FROM ${hourly ? 'quality_1h' : 'quality_5m'} WHERE", tables)].sort(), ['quality_1h', 'quality_5m'])
  assert.equal(ownerProblems('dashboard/src/queries/x.ts', ['scores']).length, 1)
  assert.deepEqual(ownerProblems('scoring/src/scores/x.ts', ['scores']), [])
  assert.deepEqual(ownerProblems('review/src/queue-store.ts', ['feedback']), [])
  assert.equal(ownerProblems('review/src/queue-store.ts', ['scores']).length, 1)
})
