import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { CheckDefinition } from '@sieve/scorer'
import type { GoldenExample } from '../dataset/golden-example.js'
import { readDataset } from '../dataset/validate-dataset.js'
import { baselineKey, readBaseline, writeBaseline, type BaselineEntry } from './baseline.js'
import { runAgent } from './run-agent.js'
import { replayTrace, scoreReplay, type ReplayCheck } from './score-replay.js'
import { startSpanReceiver } from './span-receiver.js'

export interface GateOptions {
  dataset: string
  agent: string
  repeats: number
  failBelow?: number
  warnBelow?: number
  baseline?: string
  updateBaseline: boolean
  timeoutMs: number
  checks: readonly CheckDefinition[]
  cwd?: string
  /** Progress lines for the terminal. */
  log?: (line: string) => void
}

export interface RunResult {
  value: number
  passed: boolean
  traceId: string
  checks: ReplayCheck[]
  error?: string
}

export interface ExampleResult {
  id: string
  bucket: GoldenExample['bucket']
  runs: RunResult[]
  mean: number
  passRate: number
  /** pass: every run passed; unstable: some did (an instability); fail: none did (a capability gap). */
  status: 'pass' | 'unstable' | 'fail'
  baseline?: { mean: number; passRate: number }
}

export interface GateReport {
  dataset: { path: string; version: string; examples: number }
  agent: string
  repeats: number
  model: string
  examples: ExampleResult[]
  overall: { mean: number; passRate: number }
  baseline: { path: string; compared: boolean; note: string; overall?: { mean: number; passRate: number } } | undefined
  verdict: 'pass' | 'warn' | 'fail'
  reasons: string[]
  warnings: string[]
  exitCode: 0 | 1 | 2
}

export class GateConfigError extends Error {
  readonly code = 'EVAL_CONFIG'
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0)
const round = (x: number) => Math.round(x * 1000) / 1000

/** The dataset's version for baselines: a hash of its content, so an edited dataset is a new version. */
export function datasetVersion(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16)
}

/**
 * Replays every example `repeats` times through the agent, scores each run with the example's
 * expected checks, compares with the baseline and decides: exit 0 pass (or warn), 1 regression or
 * a known failure failing again, 2 configuration error (raised as GateConfigError).
 */
export async function runGate(o: GateOptions): Promise<GateReport> {
  const log = o.log ?? (() => {})
  const { examples, problems } = readDataset(o.dataset)
  if (problems.length) throw new GateConfigError(`${o.dataset} has ${problems.length} invalid line(s); run \`sieve dataset validate ${o.dataset}\``)
  if (!examples.length) throw new GateConfigError(`${o.dataset} holds no examples`)
  const baselineFile = o.baseline ? readBaseline(o.baseline) : undefined
  const version = datasetVersion(o.dataset)

  const receiver = await startSpanReceiver()
  const results: ExampleResult[] = []
  const models = new Map<string, number>()
  try {
    for (const [index, { example }] of examples.entries()) {
      const runs: RunResult[] = []
      for (let r = 0; r < o.repeats; r++) {
        receiver.take()
        const run = await runAgent(o.agent, example, receiver.endpoint, o.timeoutMs, o.cwd)
        if (index === 0 && r === 0 && (run.exitCode === 127 || run.exitCode === null) && !run.timedOut) {
          throw new GateConfigError(`cannot run the agent '${o.agent}': ${run.stderr || `exit code ${run.exitCode}`}`)
        }
        const score = scoreReplay(replayTrace(receiver.take()), example, o.checks)
        if (score.model) models.set(score.model, (models.get(score.model) ?? 0) + 1)
        const error = run.timedOut ? `timed out after ${o.timeoutMs} ms` : run.exitCode !== 0 ? `exit code ${run.exitCode}: ${run.stderr.split('\n').slice(-3).join(' ')}` : undefined
        runs.push({ value: score.value, passed: score.passed && !error, traceId: score.traceId, checks: score.checks, ...(error ? { error } : {}) })
      }
      const passRate = runs.filter((r) => r.passed).length / runs.length
      const status = passRate === 1 ? 'pass' : passRate === 0 ? 'fail' : 'unstable'
      results.push({ id: example.id, bucket: example.bucket, runs, mean: round(mean(runs.map((r) => r.value))), passRate: round(passRate), status })
      log(`${example.id}  ${status.padEnd(8)} mean ${round(mean(runs.map((r) => r.value)))}  pass rate ${round(passRate)}`)
    }
  } finally {
    await receiver.close()
  }

  const model = [...models.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ''
  const overall = { mean: round(mean(results.map((e) => e.mean))), passRate: round(mean(results.map((e) => e.passRate))) }
  const reasons: string[] = []
  const warnings: string[] = []
  if (o.failBelow !== undefined && overall.mean < o.failBelow) reasons.push(`mean score ${overall.mean} is below --fail-below ${o.failBelow}`)
  for (const e of results) {
    if (e.bucket === 'known-failure' && e.passRate < 1) reasons.push(`known failure ${e.id} fails again (pass rate ${e.passRate})`)
  }
  if (o.warnBelow !== undefined && overall.mean < o.warnBelow) warnings.push(`mean score ${overall.mean} is below --warn-below ${o.warnBelow}`)
  for (const e of results) if (e.status === 'unstable') warnings.push(`${e.id} is unstable: passed ${Math.round(e.passRate * o.repeats)} of ${o.repeats} runs`)

  let baseline: GateReport['baseline']
  if (o.baseline && baselineFile) {
    const entry = baselineFile.entries[baselineKey(version, model)]
    if (!entry) {
      baseline = { path: o.baseline, compared: false, note: `no baseline for dataset version ${version} and model ${model || '(unknown)'}` }
    } else {
      baseline = { path: o.baseline, compared: true, note: `baseline of ${entry.createdAt}`, overall: entry.overall }
      for (const e of results) {
        const before = entry.examples[e.id]
        if (!before) continue
        e.baseline = before
        if (e.passRate < before.passRate) reasons.push(`regression on ${e.id}: pass rate ${before.passRate} → ${e.passRate}`)
      }
    }
    if (o.updateBaseline) {
      const next: BaselineEntry = {
        datasetVersion: version,
        model,
        createdAt: new Date().toISOString(),
        overall,
        examples: Object.fromEntries(results.map((e) => [e.id, { mean: e.mean, passRate: e.passRate }])),
      }
      writeBaseline(o.baseline, baselineFile, next)
    }
  }
  const verdict = reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass'
  return {
    dataset: { path: o.dataset, version, examples: results.length },
    agent: o.agent,
    repeats: o.repeats,
    model,
    examples: results,
    overall,
    baseline,
    verdict,
    reasons,
    warnings,
    exitCode: reasons.length ? 1 : 0,
  }
}
