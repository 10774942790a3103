// The commit message rule (CONTRIBUTING in ARCHITECTURE.md): `<part>[, <part>]: summary`, the subject at most
// 72 characters, a part being a workspace folder or docs, deploy, migrations, build. Git's own merge, fixup and
// squash subjects pass. Run by .githooks/commit-msg (`npm ci` points git's core.hooksPath there).
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = new URL('../', import.meta.url)
const EXTRA_PARTS = ['docs', 'deploy', 'migrations', 'build']

export function commitParts() {
  const { workspaces } = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'))
  return [...workspaces, ...EXTRA_PARTS]
}

/** What is wrong with a commit message's subject line, or undefined. */
export function subjectProblem(message, parts = commitParts()) {
  const subject = message.split('\n').find((line) => line.trim() && !line.startsWith('#')) ?? ''
  if (/^(Merge |Revert "|fixup! |squash! |amend! )/.test(subject)) return undefined
  if (subject.length > 72) return `the subject is ${subject.length} characters; keep it to 72`
  const match = /^([a-z0-9-]+(?:, [a-z0-9-]+)*): \S/.exec(subject)
  if (!match) return `the subject "${subject}" is not "<part>[, <part>]: summary"`
  const unknown = match[1].split(', ').filter((p) => !parts.includes(p))
  if (unknown.length) return `${unknown.join(', ')} is not a part; parts are ${parts.join(', ')}`
  return undefined
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = subjectProblem(readFileSync(process.argv[2], 'utf8'))
  if (problem) {
    console.error(`commit-msg: ${problem}`)
    process.exit(1)
  }
}
