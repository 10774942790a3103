// Puts @sieve/protocol's build inside the SDK's (dist/bundled/protocol/) and points the SDK's
// imports of it there, so the published package needs nothing from the repository's workspaces:
// `npm install` of its tarball resolves only registry packages (protocol's one dependency, zod,
// is the SDK's own). Run by `npm run build -w @sieve/sdk` after tsc, so by `npm pack` too.
// Idempotent: a second run finds nothing left to rewrite and copies the same files again.
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const dist = fileURLToPath(new URL('../dist/', import.meta.url))
const bundled = join(dist, 'bundled', 'protocol')
// The build, not the sources: this script runs without the sieve-source condition.
const protocolDist = dirname(fileURLToPath(import.meta.resolve('@sieve/protocol')))

rmSync(bundled, { recursive: true, force: true })
mkdirSync(bundled, { recursive: true })
for (const name of readdirSync(protocolDist)) {
  // Without protocol's source maps, whose sources are not published: the reference to them goes too.
  if (name.endsWith('.js')) writeFileSync(join(bundled, name), readFileSync(join(protocolDist, name), 'utf8').replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'))
  else if (name.endsWith('.d.ts')) copyFileSync(join(protocolDist, name), join(bundled, name))
}

const SPECIFIER = /(['"])@sieve\/protocol\1/g
/** An import of any of the repository's packages (`@sieve/sdk` as a string, the distro name, is no import). */
const IMPORTS_WORKSPACE = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"]@sieve\//
const left = []
function* files(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* files(path)
    else if (entry.name.endsWith('.js') || entry.name.endsWith('.d.ts')) yield path
  }
}
for (const file of files(dist)) {
  const text = readFileSync(file, 'utf8')
  const target = relative(dirname(file), join(bundled, 'index.js')).split(sep).join('/')
  const rewritten = text.replace(SPECIFIER, (_, quote) => `${quote}${target.startsWith('.') ? target : `./${target}`}${quote}`)
  if (rewritten !== text) writeFileSync(file, rewritten)
  if (IMPORTS_WORKSPACE.test(rewritten)) left.push(relative(dist, file))
}
if (left.length) {
  console.error(`bundle-protocol: still importing a @sieve/ package: ${left.join(', ')}`)
  process.exit(1)
}
