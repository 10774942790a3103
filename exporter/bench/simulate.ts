/**
 * `npm run bench:simulate`: what `sieve simulate` itself costs per simulated turn (orchestration,
 * the span receiver, reading the answer from the trace, scoring each run as a session) against what
 * the agent under test costs, so the runner never dominates. The SDK's example support agent (its
 * scripted model, a node process per turn as the agent protocol runs it) plays every example
 * scenario × template, scripted users, BENCH_REPEATS times (default 10) with BENCH_CONCURRENCY
 * conversations at once (default 50), after a warm-up round that is not counted. The runner's CPU
 * is this process's; the agents' is its children's, from /proc once they have exited. Target: at
 * most 5 ms of the runner per turn.
 */
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '@sieve/core'
import { resolveChecksConfig } from '@sieve/scorer'
import { processCpuSeconds } from '@sieve/testkit'
import { childrenCpuSeconds } from '@sieve/testkit/bench'
import { runSimulation } from '../src/index.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const REPEATS = Number(process.env.BENCH_REPEATS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50)

const { sections } = loadConfig({ SIEVE_CONFIG_FILE: join(ROOT, 'sdk/examples/support-agent/sieve.yaml') })
const checks = resolveChecksConfig(sections.checks, [], sections.scorecards)
const load = () => loadavg().map((l) => l.toFixed(1)).join(' ')
const loadAtStart = load()
console.log(`simulating the example scenarios ${REPEATS} time(s) each, ${CONCURRENCY} conversations at once...`)

const simulate = (repeats: number, concurrency: number) =>
  runSimulation({
    scenarios: [join(ROOT, 'sdk/examples/support-agent/scenarios')],
    agent: 'sdk/examples/support-agent/sieve-agent.ts',
    repeats,
    concurrency,
    timeoutMs: 600_000,
    checks,
    user: 'scripted',
    updateBaseline: false,
    cwd: ROOT,
  })
// Warm-up, not measured: what the first run loads once (the scrubber's lexicons, compiled modules, JIT).
await simulate(1, 5)
const own = processCpuSeconds()
const children = childrenCpuSeconds()
const started = performance.now()
const report = await simulate(REPEATS, CONCURRENCY)
const wallS = (performance.now() - started) / 1000
const ownS = processCpuSeconds() - own
const agentS = childrenCpuSeconds() - children
const runs = report.variants.flatMap((v) => v.runs)
const turns = runs.reduce((n, r) => n + r.turns, 0)
const ms = (s: number) => ((s * 1000) / turns).toFixed(1)

console.log(`
Simulation benchmark: ${runs.length} conversations (${report.variants.length} scenario × template x ${REPEATS}), ${turns} turns, ${Math.min(CONCURRENCY, runs.length)} at once; ${report.overall.passed} passed; ${wallS.toFixed(1)} s; load average ${loadAtStart} → ${load()}

  per turn, CPU                                   ms
  sieve simulate (this process)         ${ms(ownS).padStart(9)}   target ≤ 5
  the agent (a node process per turn)   ${ms(agentS).padStart(9)}
  runner / agent                        ${(ownS / agentS).toFixed(3).padStart(9)}
`)
