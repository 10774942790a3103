import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { median } from '@sieve/testkit'

/*
 * How long `sieve --help` and `sieve --version` take, wall time, through the bin as users run it
 * (node_modules/.bin/sieve). Wall time, not CPU: a user waits for the answer. Each round runs every
 * case once, in turn, so load on the shared machine falls on all of them alike; the ratios are to
 * `node -e 0` (Node's own start) and `node --import tsx -e 0` (Node with the TypeScript loader the
 * bin runs the sources with) measured in the same rounds.
 *
 *   npm run bench:cli [-- --runs 21]
 */

const root = fileURLToPath(new URL('../../', import.meta.url))
const sieve = `${root}node_modules/.bin/sieve`
const at = process.argv.indexOf('--runs')
const runs = at > 0 ? Number(process.argv[at + 1]) : 15

const cases: [string, string, string[]][] = [
  ['node -e 0', process.execPath, ['-e', '0']],
  ['node --import tsx -e 0', process.execPath, ['--import', 'tsx', '-e', '0']],
  ['sieve --help', sieve, ['--help']],
  ['sieve --version', sieve, ['--version']],
  ['sieve up --help', sieve, ['up', '--help']],
]

const times = new Map<string, number[]>(cases.map(([name]) => [name, []]))
for (let round = 0; round < runs + 1; round++) {
  for (const [name, file, args] of cases) {
    const start = performance.now()
    const result = spawnSync(file, args, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] })
    const ms = performance.now() - start
    if (result.status !== 0) throw new Error(`${name} exited ${result.status}: ${result.stderr}`)
    if (round > 0) times.get(name)!.push(ms) // the first round warms the disk cache and tsx's cache
  }
}

const node = median(times.get('node -e 0')!)
const tsx = median(times.get('node --import tsx -e 0')!)
console.log(`CLI start-up, wall time, median of ${runs} runs (load average ${(await import('node:os')).loadavg()[0]!.toFixed(2)})`)
for (const [name] of cases) {
  const ms = median(times.get(name)!)
  console.log(
    `${name.padEnd(24)} ${ms.toFixed(0).padStart(5)} ms   ${(ms / node).toFixed(1).padStart(4)}× node -e 0   ${(ms / tsx).toFixed(2)}× node --import tsx -e 0`,
  )
}
