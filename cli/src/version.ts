import { execFileSync } from 'node:child_process'
import { readFileSync, realpathSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const cliDir = join(dirname(fileURLToPath(import.meta.url)), '..')

/**
 * The commit of the checkout this CLI runs from, short; undefined when it does not run from a git
 * checkout of Sieve (an installed copy, no git, a tarball), and never an error. The checkout must
 * be Sieve's own, with this package at `cli/` of it: a copy installed into another project's
 * node_modules lies inside that project's repository, whose commit says nothing about Sieve's.
 */
export function gitCommit(): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', '--show-toplevel', '--short', 'HEAD'], {
      cwd: cliDir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 2000,
    })
    const [top, commit] = out.trim().split('\n')
    if (!top || !commit || realpathSync(top) !== realpathSync(join(cliDir, '..'))) return undefined
    return /^[0-9a-f]{4,}$/.test(commit) ? commit : undefined
  } catch {
    return undefined
  }
}

/** `sieve 0.1.0 (commit 1a2b3c4)`, or `sieve 0.1.0` outside a git checkout. */
export function versionText(): string {
  const { version } = JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')) as { version: string }
  const commit = gitCommit()
  return `sieve ${version}${commit ? ` (commit ${commit})` : ''}`
}
