import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * Every import between Sieve's packages points down: libraries at the bottom, the roles on them, the
 * CLI on top. A role imports libraries only, never another role; a library never imports a role. A
 * package's code imports only packages on a lower layer that its package.json lists under
 * `dependencies`; tests and benchmarks may also use testkit (and devDependencies); nothing reaches
 * into another package's files by a relative path, except that tests run the runnable agents
 * (`FIXTURE_DIRS`) as a user would. Each workspace declares the third-party packages it imports and
 * none it does not, and its shipped files import each other without circles. Adding a package means
 * giving it a layer here, and ARCHITECTURE.md a row.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** What `sieve <role>` runs (the regression gate's `sieve eval` and `sieve simulate` included): each stands on libraries alone. */
const ROLES = ['collector', 'ingester', 'scorer', 'judge', 'dashboard', 'replay']
/**
 * Bottom first: the libraries, then the roles, then the CLI that assembles them. The SDK runs inside
 * users' agents and imports only the wire protocol it shares with the server. Golden datasets
 * (`dataset`: export, scrub, the example schema and its validation) are a library: the gate replays
 * their examples, and `sieve export`, `sieve scrub` and `sieve dataset` are the CLI calling it.
 */
const LAYERS: string[][] = [
  ['protocol', 'metrics'],
  ['core', 'pii', 'sdk'],
  ['otlp'],
  ['queue'],
  ['http', 'scoring', 'llm'],
  ['judging', 'dataset'],
  ['review'],
  ROLES,
  ['cli'],
]
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
  if (site.shipped && ROLES.includes(from) && ROLES.includes(to)) {
    return `${file} imports @sieve/${to}: a role imports libraries only, never another role (move what both need into a library)`
  }
  if (site.shipped && !ROLES.includes(from) && from !== 'cli' && from !== HARNESS && ROLES.includes(to))
    return `${file} imports @sieve/${to}: a library never imports a role`
  const bundled = BUNDLED[from]?.includes(to) ?? false
  const declared = site.shipped && !bundled ? own.dependencies : new Set([...own.dependencies, ...own.devDependencies])
  if (!declared.has(`@sieve/${to}`))
    return `${file} imports @sieve/${to}, which ${from}/package.json does not list under ${site.shipped && !bundled ? 'dependencies' : 'dependencies or devDependencies'}`
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

/**
 * What a file imports: static imports and re-exports (a statement at the start of a line), dynamic
 * `import()`, and packages loaded by name through `require` or `createRequire` (called `require` or
 * `load`, or its `.resolve`). Words in comments are not imports, nor is code in a double-quoted
 * string (Sieve's code quotes with single quotes: one in double quotes is another program's, such as
 * `node -e`'s).
 */
const SPECIFIERS = [
  /^\s*(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/gm,
  /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
  /\b(?:require|load)(?:\.resolve)?\(\s*['"]([^'"]+)['"]/g,
  /\)\.resolve\(\s*['"]([^'"]+)['"]/g,
]
const specifiers = (text: string): string[] => {
  const code = text.replace(/"(?:[^"\\\n]|\\.)*"/g, '""')
  return SPECIFIERS.flatMap((pattern) => [...code.matchAll(pattern)].map((m) => m[1]!))
}

function importSites(workspaces: string[]): ImportSite[] {
  const sites: ImportSite[] = []
  for (const from of workspaces) {
    for (const path of sourceFiles(join(ROOT, from))) {
      const file = relative(ROOT, path)
      const shipped = file.startsWith(`${from}${sep}src${sep}`)
      for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
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

const rootManifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[]; devDependencies?: Record<string, string> }
const workspaces = rootManifest.workspaces

/** The toolchain the repository root installs for every workspace's tests and scripts: tsx, the compiler, Node's types. */
const TOOLCHAIN = new Set(Object.keys(rootManifest.devDependencies ?? {}))
const BUILTIN = new Set(builtinModules)

/** The package a specifier names (`@scope/name` or `name`); undefined for paths, URLs and Node's own modules. */
function packageOf(specifier: string): string | undefined {
  if (/^[./]/.test(specifier) || /^[a-z]+:/.test(specifier) || /^[^/]+\.(ya?ml|json|[cm]?[jt]s)$/.test(specifier)) return undefined
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!
  return BUILTIN.has(name) ? undefined : name
}

/** Every package.json section that declares packages. */
interface Declared {
  dependencies: Set<string>
  devDependencies: Set<string>
  optionalDependencies: Set<string>
  peerDependencies: Set<string>
}

/** The packages other than Sieve's a workspace's files import, each with one file importing it: shipped code's, and the rest's. */
interface Imported {
  shipped: Map<string, string>
  other: Map<string, string>
}

/**
 * What is wrong with a workspace's declared third-party packages: one its shipped code imports not
 * among its dependencies (optional and peer ones count), one its tests, benchmarks or scripts import
 * declared nowhere (the root's toolchain counts), a dependency its shipped code never imports, a
 * devDependency nothing imports (`@types/x` counts as imported with `x`).
 */
export function declarationProblems(workspace: string, declared: Declared, imported: Imported): string[] {
  const problems: string[] = []
  const runtime = new Set([...declared.dependencies, ...declared.optionalDependencies, ...declared.peerDependencies])
  const anywhere = new Set([...runtime, ...declared.devDependencies, ...TOOLCHAIN])
  const used = (name: string) => imported.shipped.has(name) || imported.other.has(name)
  // Whether a Sieve package may be imported at all is the layer check's (`violation`); here only whether it is used.
  const third = (name: string) => !name.startsWith('@sieve/')
  for (const [name, file] of imported.shipped)
    if (third(name) && !runtime.has(name)) problems.push(`${file} imports ${name}, which ${workspace}/package.json does not list under dependencies`)
  for (const [name, file] of imported.other)
    if (third(name) && !anywhere.has(name)) problems.push(`${file} imports ${name}, which ${workspace}/package.json does not list`)
  for (const name of declared.dependencies) {
    if (imported.shipped.has(name)) continue
    problems.push(`${workspace}/package.json lists ${name} under dependencies, which ${workspace}/src/ never imports${used(name) ? ': a devDependency' : ''}`)
  }
  for (const name of [...declared.devDependencies, ...declared.optionalDependencies]) {
    const typed = /^@types\/(.+)$/.exec(name)?.[1]
    const of = typed === undefined ? name : typed.includes('__') ? `@${typed.replace('__', '/')}` : typed
    if (!used(of) && of !== 'node') problems.push(`${workspace}/package.json lists ${name}, which nothing in ${workspace}/ imports`)
  }
  return problems
}

function declaredBy(workspace: string): Declared {
  const json = JSON.parse(readFileSync(join(ROOT, workspace, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
  const names = (section: string) => new Set(Object.keys(json[section] ?? {}))
  return {
    dependencies: names('dependencies'),
    devDependencies: names('devDependencies'),
    optionalDependencies: names('optionalDependencies'),
    peerDependencies: names('peerDependencies'),
  }
}

function importedBy(workspace: string): Imported {
  const imported: Imported = { shipped: new Map(), other: new Map() }
  for (const path of sourceFiles(join(ROOT, workspace))) {
    const file = relative(ROOT, path)
    const into = file.startsWith(`${workspace}${sep}src${sep}`) ? imported.shipped : imported.other
    for (const specifier of specifiers(readFileSync(path, 'utf8'))) {
      const name = packageOf(specifier)
      if (name && name !== `@sieve/${workspace}` && !into.has(name)) into.set(name, file)
    }
  }
  return imported
}

/** The strongly connected sets of more than one file in a graph of files (Tarjan's algorithm). */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const u of graph.get(v) ?? []) {
      if (!index.has(u)) {
        visit(u)
        low.set(v, Math.min(low.get(v)!, low.get(u)!))
      } else if (onStack.has(u)) low.set(v, Math.min(low.get(v)!, index.get(u)!))
    }
    if (low.get(v) !== index.get(v)) return
    const set: string[] = []
    let u: string
    do {
      u = stack.pop()!
      onStack.delete(u)
      set.push(u)
    } while (u !== v)
    if (set.length > 1) found.push(set.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return found
}

/** The relative imports among a workspace's shipped files, by repository-relative path. */
function shippedGraph(workspace: string): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  const src = join(ROOT, workspace, 'src')
  if (!existsSync(src)) return graph
  for (const path of sourceFiles(src)) {
    const targets = specifiers(readFileSync(path, 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => resolve(dirname(path), s).replace(/\.js$/, '.ts'))
      .filter((t) => existsSync(t))
      .map((t) => relative(ROOT, t))
    graph.set(relative(ROOT, path), targets)
  }
  return graph
}

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

test('each workspace declares the third-party packages it imports, and no package it does not', () => {
  assert.ok(importedBy('queue').shipped.has('kafkajs'), 'the scan finds the queue importing kafkajs')
  const problems = workspaces.flatMap((w) => declarationProblems(w, declaredBy(w), importedBy(w)))
  assert.deepEqual(problems, [])
})

test("no workspace's shipped files import each other in a circle", () => {
  const found = workspaces.flatMap((w) => circles(shippedGraph(w))).map((set) => set.join(', '))
  // Type-only imports count: a file's types defined in a file that needs the first is a circle too.
  assert.deepEqual(found, [])
})

test("each workspace's build references the builds of the workspaces it depends on, so `tsc -b` builds them first", () => {
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

test("ARCHITECTURE.md's table of folders names every workspace, and only folders that exist", () => {
  const rows = [...readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8').matchAll(/^\| `([a-z-]+)\/` \|/gm)].map((m) => m[1]!)
  for (const w of workspaces) assert.ok(rows.includes(w), `ARCHITECTURE.md has no row for ${w}/`)
  for (const row of rows) assert.ok(existsSync(join(ROOT, row)), `ARCHITECTURE.md names ${row}/, which does not exist`)
})

test('the check refuses an upward, a sideways, an undeclared and a relative import', () => {
  const manifests = new Map<string, Manifest>([
    ['collector', { dependencies: new Set(['@sieve/core', '@sieve/scorer', '@sieve/http']), devDependencies: new Set(['@sieve/testkit']) }],
    ['replay', { dependencies: new Set(['@sieve/dashboard', '@sieve/judge']), devDependencies: new Set() }],
    ['scoring', { dependencies: new Set(['@sieve/core', '@sieve/scorer']), devDependencies: new Set(['@sieve/scorer']) }],
    ['dataset', { dependencies: new Set(['@sieve/replay']), devDependencies: new Set() }],
    ['core', { dependencies: new Set(['@sieve/http']), devDependencies: new Set() }],
  ])
  const site = (from: string, to: string, extra: Partial<ImportSite> = {}): ImportSite => ({
    file: `${from}/src/x.ts`,
    from,
    to,
    shipped: true,
    relative: false,
    ...extra,
  })
  assert.equal(violation(site('collector', 'core'), manifests), undefined)
  assert.equal(violation(site('collector', 'http'), manifests), undefined)
  assert.match(violation(site('collector', 'scorer'), manifests)!, /a role imports libraries only, never another role/)
  assert.match(violation(site('replay', 'dashboard'), manifests)!, /a role imports libraries only/)
  assert.match(violation(site('replay', 'judge'), manifests)!, /a role imports libraries only/)
  assert.match(violation(site('scoring', 'scorer'), manifests)!, /a library never imports a role/)
  assert.match(violation(site('dataset', 'replay'), manifests)!, /a library never imports a role/, 'the gate reads datasets, never the reverse')
  assert.equal(
    violation(site('scoring', 'scorer', { shipped: false, file: 'scoring/test/x.test.ts' }), manifests),
    undefined,
    "a library's tests may run a role",
  )
  assert.match(violation(site('core', 'http'), manifests)!, /http is not below core/)
  assert.match(violation(site('collector', 'sdk'), manifests)!, /does not list/)
  assert.match(violation(site('collector', 'core', { relative: true, target: 'core/src/x.ts' }), manifests)!, /relative path/)
  assert.match(violation(site('collector', 'sdk', { relative: true, target: `sdk${sep}examples${sep}a.ts` }), manifests)!, /relative path/)
  assert.equal(violation(site('collector', 'sdk', { relative: true, shipped: false, target: `sdk${sep}examples${sep}a.ts` }), manifests), undefined)
  assert.match(violation(site('collector', 'testkit'), manifests)!, /test harness/)
  assert.equal(violation(site('collector', 'testkit', { shipped: false, file: 'collector/test/x.test.ts' }), manifests), undefined)
})

test('the declarations check refuses an undeclared and an unused package, and the circle check finds a circle', () => {
  const declared = (dependencies: string[], devDependencies: string[] = []) => ({
    dependencies: new Set(dependencies),
    devDependencies: new Set(devDependencies),
    optionalDependencies: new Set<string>(),
    peerDependencies: new Set<string>(),
  })
  const imported = (shipped: string[], other: string[] = []) => ({
    shipped: new Map(shipped.map((n) => [n, 'w/src/a.ts'])),
    other: new Map(other.map((n) => [n, 'w/test/a.test.ts'])),
  })
  assert.deepEqual(declarationProblems('w', declared(['express'], ['@types/express']), imported(['express'], ['kafkajs'])), [
    'w/test/a.test.ts imports kafkajs, which w/package.json does not list',
  ])
  assert.match(
    declarationProblems('w', declared([]), imported(['express']))[0]!,
    /w\/src\/a.ts imports express, which w\/package.json does not list under dependencies/,
  )
  assert.match(
    declarationProblems('w', declared(['@clickhouse/client']), imported([]))[0]!,
    /lists @clickhouse\/client under dependencies, which w\/src\/ never imports/,
  )
  assert.match(declarationProblems('w', declared([], ['yaml']), imported([]))[0]!, /lists yaml, which nothing in w\/ imports/)
  assert.deepEqual(specifiers("import a from 'a'\nconst b = await import('b')\nload('c')\nrun(\"require('d')\") // import e from 'e'"), ['a', 'b', 'c'])
  assert.deepEqual(
    circles(
      new Map([
        ['a', ['b']],
        ['b', ['c']],
        ['c', ['a']],
        ['d', ['a']],
      ]),
    ),
    [['a', 'b', 'c']],
  )
  assert.deepEqual(
    circles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  )
})
