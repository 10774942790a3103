import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * Every import between Sieve's packages points down the pipeline. A package's code imports only
 * packages on a lower layer that its package.json lists under `dependencies`; tests and benchmarks
 * may also use testkit (and devDependencies); nothing reaches into another package's files by a
 * relative path, except that tests run the runnable agents (`FIXTURE_DIRS`) as a user would. Adding
 * a package means giving it a layer here, and ARCHITECTURE.md a row.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Bottom first. The SDK runs inside users' agents and imports only the wire protocol it shares with the server. */
const LAYERS: string[][] = [['protocol'], ['core', 'sdk'], ['otlp'], ['queue'], ['http', 'scoring', 'llm'], ['collector'], ['ingester', 'scorer'], ['judge'], ['exporter', 'dashboard'], ['cli']]
/** The test harness: above every part it starts, below the CLI; imported only by tests, benchmarks and examples. */
const HARNESS = 'testkit'
const HARNESS_LAYER = LAYERS.length - 1

/** Agents that tests and benchmarks run, as files: the SDK's example and the harness's scripted agents. */
const FIXTURE_DIRS = [`sdk${sep}examples${sep}`, `testkit${sep}agents${sep}`]

/**
 * Packages whose build carries a lower package inside it, so they do not depend on it once
 * published: the SDK's build copies @sieve/protocol's into dist/ (sdk/scripts/bundle-protocol.mjs),
 * and lists it under devDependencies.
 */
const BUNDLED: Record<string, string[]> = { sdk: ['protocol'] }

const layerOf = (pkg: string): number => (pkg === HARNESS ? HARNESS_LAYER - 0.5 : LAYERS.findIndex((l) => l.includes(pkg)))

interface Manifest {
  dependencies: Set<string>
  devDependencies: Set<string>
}

interface ImportSite {
  /** Repository-relative path of the importing file. */
  file: string
  /** Workspace folder of the importing file. */
  from: string
  /** `@sieve/<name>` imported, or the workspace folder a relative path lands in. */
  to: string
  /** Code that ships (src/) rather than tests, benchmarks, examples or scripts. */
  shipped: boolean
  relative: boolean
  /** Where a relative import lands, repository-relative. */
  target?: string
}

/** What is wrong with one import; none when it points down as declared. */
export function violation(site: ImportSite, manifests: Map<string, Manifest>): string | undefined {
  const { file, from, to } = site
  if (to === from) return undefined
  if (site.relative && !site.shipped && FIXTURE_DIRS.some((d) => site.target?.startsWith(d))) return undefined
  if (site.relative) return `${file} reaches into ${to}/ by a relative path: import @sieve/${to} instead`
  const own = manifests.get(from)!
  if (to === HARNESS && site.shipped && from !== HARNESS) return `${file} ships code importing @sieve/${HARNESS}, the test harness`
  const bundled = BUNDLED[from]?.includes(to) ?? false
  const declared = site.shipped && !bundled ? own.dependencies : new Set([...own.dependencies, ...own.devDependencies])
  if (!declared.has(`@sieve/${to}`)) return `${file} imports @sieve/${to}, which ${from}/package.json does not list under ${site.shipped && !bundled ? 'dependencies' : 'dependencies or devDependencies'}`
  if (site.shipped || from === HARNESS) {
    if (layerOf(to) < 0) return `${file} imports @sieve/${to}, which has no layer in this test`
    if (layerOf(to) >= layerOf(from)) return `${file} imports @sieve/${to}: ${to} is not below ${from}`
  }
  return undefined
}

function manifestOf(workspace: string): Manifest {
  const json = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
  return { dependencies: new Set(Object.keys(json.dependencies ?? {})), devDependencies: new Set(Object.keys(json.devDependencies ?? {})) }
}

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sourceFiles(path)
    else if (/\.(ts|mts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path
  }
}

const SPECIFIER = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"]([^'"]+)['"]/g

function importSites(workspaces: string[]): ImportSite[] {
  const sites: ImportSite[] = []
  for (const from of workspaces) {
    for (const path of sourceFiles(join(ROOT, from))) {
      const file = relative(ROOT, path)
      const shipped = file.startsWith(`${from}${sep}src${sep}`)
      for (const [, specifier] of readFileSync(path, 'utf8').matchAll(SPECIFIER)) {
        const pkg = /^@sieve\/([a-z-]+)/.exec(specifier!)?.[1]
        if (pkg) sites.push({ file, from, to: pkg, shipped, relative: false })
        else if (specifier!.startsWith('.')) {
          const target = relative(ROOT, resolve(path, '..', specifier!))
          const to = target.split(sep)[0]!
          if (workspaces.includes(to)) sites.push({ file, from, to, shipped, relative: true, target })
        }
      }
    }
  }
  return sites
}

const workspaces = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[] }).workspaces

test('every workspace has a layer, and the runtime dependencies between them form no cycle', () => {
  for (const w of workspaces) assert.ok(w === HARNESS || layerOf(w) >= 0, `${w} has no layer`)
  const manifests = new Map(workspaces.map((w) => [w, manifestOf(w)]))
  const visiting = new Set<string>()
  const done = new Set<string>()
  const visit = (w: string, path: string[]) => {
    if (done.has(w)) return
    assert.ok(!visiting.has(w), `runtime dependency cycle: ${[...path, w].join(' → ')}`)
    visiting.add(w)
    for (const dep of manifests.get(w)!.dependencies) if (dep.startsWith('@sieve/')) visit(dep.slice('@sieve/'.length), [...path, w])
    visiting.delete(w)
    done.add(w)
  }
  for (const w of workspaces) visit(w, [])
})

test('every import between packages points down and is declared', () => {
  const manifests = new Map(workspaces.map((w) => [w, manifestOf(w)]))
  const sites = importSites(workspaces)
  assert.ok(sites.filter((s) => s.from === 'cli' && s.shipped).length > 10, 'the scan finds the CLI assembling the parts')
  const problems = [...new Set(sites.map((s) => violation(s, manifests)).filter((p) => p !== undefined))]
  assert.deepEqual(problems, [])
})

test('each workspace\'s build references the builds of the workspaces it depends on, so `tsc -b` builds them first', () => {
  for (const w of workspaces) {
    let config: { references?: { path: string }[] }
    try {
      config = JSON.parse(readFileSync(join(ROOT, w, 'tsconfig.build.json'), 'utf8')) as typeof config
    } catch {
      continue
    }
    const referenced = new Set((config.references ?? []).map((r) => resolve(ROOT, w, r.path)))
    for (const dep of manifestOf(w).dependencies) {
      if (!dep.startsWith('@sieve/')) continue
      const build = join(ROOT, dep.slice('@sieve/'.length), 'tsconfig.build.json')
      assert.ok(referenced.has(build), `${w}/tsconfig.build.json does not reference ${relative(ROOT, build)}, a dependency's build`)
    }
  }
})

test('ARCHITECTURE.md\'s table of folders names every workspace, and only folders that exist', () => {
  const rows = [...readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8').matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]!)
  for (const w of workspaces) assert.ok(rows.includes(w), `ARCHITECTURE.md has no row for ${w}/`)
  for (const row of rows) assert.ok(existsSync(join(ROOT, row)), `ARCHITECTURE.md names ${row}/, which does not exist`)
})

test('the check refuses an upward, a sideways, an undeclared and a relative import', () => {
  const manifests = new Map<string, Manifest>([
    ['collector', { dependencies: new Set(['@sieve/core', '@sieve/scorer']), devDependencies: new Set(['@sieve/testkit']) }],
    ['exporter', { dependencies: new Set(['@sieve/dashboard']), devDependencies: new Set() }],
  ])
  const site = (from: string, to: string, extra: Partial<ImportSite> = {}): ImportSite => ({ file: `${from}/src/x.ts`, from, to, shipped: true, relative: false, ...extra })
  assert.equal(violation(site('collector', 'core'), manifests), undefined)
  assert.match(violation(site('collector', 'scorer'), manifests)!, /scorer is not below collector/)
  assert.match(violation(site('exporter', 'dashboard'), manifests)!, /dashboard is not below exporter/)
  assert.match(violation(site('collector', 'sdk'), manifests)!, /does not list/)
  assert.match(violation(site('collector', 'core', { relative: true, target: 'core/src/x.ts' }), manifests)!, /relative path/)
  assert.match(violation(site('collector', 'sdk', { relative: true, target: `sdk${sep}examples${sep}a.ts` }), manifests)!, /relative path/)
  assert.equal(violation(site('collector', 'sdk', { relative: true, shipped: false, target: `sdk${sep}examples${sep}a.ts` }), manifests), undefined)
  assert.match(violation(site('collector', 'testkit'), manifests)!, /test harness/)
  assert.equal(violation(site('collector', 'testkit', { shipped: false, file: 'collector/test/x.test.ts' }), manifests), undefined)
})
