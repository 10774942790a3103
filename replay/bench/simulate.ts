/**
 * `npm run bench:simulate`: what `sieve simulate` itself costs per simulated turn (orchestration,
 * the span receiver, reading the answer, scoring each run as a session) against what the agent
 * under test costs, so the runner never dominates. The SDK's example support agent (its scripted
 * model) plays every example scenario × template, scripted users, BENCH_REPEATS times (default 10)
 * with BENCH_CONCURRENCY conversations at once (default 50), after a warm-up round that is not
 * counted, reached both ways the agent protocol allows (BENCH_AGENT=command|http|both, default
 * both): as a command (a node process per turn) and as an HTTP service (one process). The runner's
 * CPU is this process's; the agent's is its children's from /proc. The agent's model is the
 * scripted one at OPENAI_BASE_URL, which `npm run bench:simulate` serves from a parent process
 * (testkit/agents/with-support-model.ts), so neither figure counts it. Target: at most 5 ms of the
 * runner per turn.
 */
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadConfig } from '@sieve/core'
import { resolveChecksConfig } from '@sieve/scoring'
import { freePort, processCpuSeconds, startAgentService, tsxCommand } from '@sieve/testkit'
import { childrenCpuSeconds, cpuSecondsOf } from '@sieve/testkit/bench'
import { runSimulation } from '../src/index.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const REPEATS = Number(process.env.BENCH_REPEATS ?? 10)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50)
const MODES = (process.env.BENCH_AGENT ?? 'both') === 'both' ? ['http', 'command'] : [process.env.BENCH_AGENT!]

const { sections } = loadConfig({ SIEVE_CONFIG_FILE: join(ROOT, 'sdk/examples/support-agent/sieve.yaml') })
const checks = resolveChecksConfig(sections.checks, [], sections.scorecards)
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')

if (!process.env.OPENAI_BASE_URL) {
  console.error('bench:simulate: no OPENAI_BASE_URL for the agent; run it as `npm run bench:simulate`, which starts the scripted model')
  process.exit(2)
}

async function measure(mode: string) {
  const otlpPort = await freePort()
  const service =
    mode === 'http'
      ? await startAgentService(tsxCommand('sdk/examples/support-agent/sieve-agent-http.ts', '--port', '0'), {
          cwd: ROOT,
          env: { SIEVE_ENDPOINT: `http://127.0.0.1:${otlpPort}` },
        })
      : undefined
  const simulate = (repeats: number, concurrency: number) =>
    runSimulation({
      scenarios: [join(ROOT, 'sdk/examples/support-agent/scenarios')],
      agent: service?.url ?? 'sdk/examples/support-agent/sieve-agent.ts',
      ...(service ? { otlpPort } : {}),
      repeats,
      concurrency,
      timeoutMs: 600_000,
      checks,
      user: 'scripted',
      updateBaseline: false,
      cwd: ROOT,
    })
  const agentCpu = () => (service ? cpuSecondsOf(service.pid) : childrenCpuSeconds())
  try {
    // Warm-up, not measured: what the first run loads once (the scrubber's lexicons, compiled modules, JIT).
    await simulate(1, 5)
    const loadAtStart = load()
    const own = processCpuSeconds()
    const agent = agentCpu()
    const started = performance.now()
    const report = await simulate(REPEATS, CONCURRENCY)
    const wallS = (performance.now() - started) / 1000
    const runs = report.variants.flatMap((v) => v.runs)
    return {
      mode,
      ownS: processCpuSeconds() - own,
      agentS: agentCpu() - agent,
      wallS,
      loads: `${loadAtStart} → ${load()}`,
      runs: runs.length,
      turns: runs.reduce((n, r) => n + r.turns, 0),
      passed: report.overall.passed,
      variants: report.variants.length,
    }
  } finally {
    service?.stop()
  }
}

console.log(`simulating the example scenarios ${REPEATS} time(s) each, ${CONCURRENCY} conversations at once, agent: ${MODES.join(' and ')}...`)
const rows = []
for (const mode of MODES) rows.push(await measure(mode))
const ms = (s: number, turns: number) => ((s * 1000) / turns).toFixed(1)
console.log(`
Simulation benchmark, CPU per simulated turn (target: the runner ≤ 5 ms)

  agent                         conversations  turns  passed  wall s   runner ms  agent ms  runner / agent  load average
${rows.map((r) => `  ${(r.mode === 'http' ? 'HTTP service (one process)' : 'command (a process a turn)').padEnd(28)}  ${String(r.runs).padStart(13)}  ${String(r.turns).padStart(5)}  ${String(r.passed).padStart(6)}  ${r.wallS.toFixed(1).padStart(6)}  ${ms(r.ownS, r.turns).padStart(10)}  ${ms(r.agentS, r.turns).padStart(8)}  ${(r.ownS / r.agentS).toFixed(3).padStart(14)}  ${r.loads}`).join('\n')}
`)
