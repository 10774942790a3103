import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

/*
 * READMEs are reference: each part's fits in 200 lines (history goes to bench/RESULTS.md, internals to
 * DESIGN.md), and every repository path a README or DESIGN.md names, and every heading a link points
 * at, exists.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const MAX_LINES = 200

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8')
/** The repository's files, new ones not yet committed included. */
const tracked = (...patterns: string[]) =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...patterns], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)

/** The READMEs held to the cap: the root one, ARCHITECTURE.md, and each workspace's, deploy's and migrations'. */
function cappedDocs(): string[] {
  const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces
  return ['README.md', 'ARCHITECTURE.md', ...[...workspaces, 'deploy', 'migrations'].map((dir) => `${dir}/README.md`)].filter((f) => existsSync(join(ROOT, f)))
}

test('every part README, the root README and ARCHITECTURE.md are at most 200 lines', () => {
  const over = cappedDocs()
    .map((file) => ({ file, lines: read(file).split('\n').length - (read(file).endsWith('\n') ? 1 : 0) }))
    .filter(({ lines }) => lines > MAX_LINES)
  assert.deepEqual(over, [], `over ${MAX_LINES} lines`)
})

/** GitHub's anchors: a heading's (lower case, punctuation dropped, spaces to dashes; repeats get -1, -2 ...) and HTML ones. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const slug = heading!
      .replace(/`/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    out.add(n ? `${slug}-${n}` : slug)
  }
  // An anchor kept for old links where a section became a table row: <a id="kafka-ingest-benchmark"></a>.
  for (const [, id] of markdown.matchAll(/<a (?:id|name)="([^"]+)"/g)) out.add(id!)
  return out
}

const files = tracked()

/** Paths made at run time (`dist/`, the data folder, `SIEVE_DATA_DIR/...`), not kept in the repository. */
const MADE_AT_RUN_TIME = /(^|\/)(dist|data|datasets|reports|node_modules)(\/|$)|^[A-Z][A-Z0-9_]+\//
const FILE_EXTENSION = /\.(ts|js|mjs|cjs|md|ya?ml|json|jsonl|sql|sh|py|go|java|toml|txt|tpl|html|css)$/
const topLevel = new Set(files.map((f) => f.split('/')[0]!))

/** OTLP's protocol names (`OTEL_EXPORTER_OTLP_PROTOCOL`), which read like paths under `http/`. */
const OTLP_PROTOCOL = /^http\/(protobuf|json)$/

/** Whether a backticked word reads as a path in the repository rather than a route, a MIME type or a package. */
function looksLikePath(text: string, docDir: string): boolean {
  if (!/^(\.{1,2}\/)?[\w.@-]+(\/[\w.@-]*)+(#[\w-]*)?$/.test(text) || text.startsWith('@') || MADE_AT_RUN_TIME.test(text) || OTLP_PROTOCOL.test(text))
    return false
  const path = text.replace(/#.*$/, '')
  const first = path.split('/')[0]!
  return FILE_EXTENSION.test(path) || first === '.' || first === '..' || topLevel.has(first) || existsSync(join(ROOT, docDir, first))
}

/**
 * Where a path a document names points: beside the document first, then from the repository root,
 * then (for a name given within a part, `src/args.ts` in a row about `cli/`) a tracked path under the
 * document's folder that ends with it.
 */
function resolve(path: string, docDir: string): string | undefined {
  for (const base of [docDir, '']) {
    const candidate = normalize(join(base, path))
    if (!candidate.startsWith('..') && existsSync(join(ROOT, candidate))) return candidate
  }
  const under = docDir === '.' ? '' : `${docDir}/`
  const tail = `/${path.replace(/^\.\/|\/$/g, '')}`
  return files.find((f) => f.startsWith(under) && (f.endsWith(tail) || f.includes(`${tail}/`)))
}

/** The problems with the paths and anchors one document names. */
function staleReferences(doc: string): string[] {
  const docDir = dirname(doc)
  const text = read(doc).replace(/^```[\s\S]*?^```/gm, '')
  const links = [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((t) => !/^[a-z][\w+.-]*:/i.test(t))
  const code = [...text.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!.replace(/[.,;:]$/, '')).filter((t) => !/[<>*{}$]/.test(t) && looksLikePath(t, docDir))
  const problems: string[] = []
  for (const ref of new Set([...links, ...code])) {
    const [path, anchor] = ref.split('#') as [string, string | undefined]
    const target = path ? resolve(path, docDir) : doc
    if (!target) {
      problems.push(`${doc}: ${ref}`)
      continue
    }
    if (anchor && target.endsWith('.md') && links.includes(ref) && !anchors(read(target)).has(anchor)) problems.push(`${doc}: ${ref} (no such heading)`)
  }
  return problems
}

test('every path a README or DESIGN.md names, and every heading its links point at, exists', () => {
  const docs = tracked('README.md', '*/README.md', '*/DESIGN.md', 'ARCHITECTURE.md').filter((f) => !f.includes('node_modules'))
  const stale = docs.flatMap(staleReferences)
  assert.deepEqual(stale, [], 'stale references (a path renamed or gone, or a heading removed)')
})
