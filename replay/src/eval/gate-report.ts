import type { Trace } from '@sieve/core'
import type { CheckDefinition, Scorecard } from '@sieve/scoring'
import type { GoldenExample } from '@sieve/dataset'
import type { AgentTarget } from './agent-turn.js'
import type { AutoRepeats } from './auto-repeats.js'
import type { BaselineComparison } from './baseline.js'
import type { GatePolicyInput } from './gate-policy.js'
import type { StatedPolicy } from './gate-statistics.js'
import type { OverallJudge } from './judge-figures.js'
import type { MetricResult } from './metric-verdicts.js'
import type { ReplayJudge } from './replay-judge.js'
import type { RunFigures, RunResult } from './run-verdict.js'

/*
 * What the gate is given and what it reports: apart from gate.ts so that the parts the gate calls
 * (replaying examples, its findings) read these types without importing the gate itself.
 */

export interface GateOptions extends AgentTarget {
  dataset: string
  /** Runs per example, or `auto`: raised (within `policy.maxRepeats` and `maxCostUsd`) until the fail threshold is detectable. */
  repeats: number | 'auto'
  /** Thresholds, the test's level, zero-tolerance and graded checks, --max-repeats (gatePolicySchema; defaults there). */
  policy?: Omit<GatePolicyInput, 'repeats'>
  failBelow?: number
  warnBelow?: number
  baseline?: string
  updateBaseline: boolean
  checks: readonly CheckDefinition[]
  /** When given, every run of every example is judged, and a run the judge fails is a failed run. */
  judge?: ReplayJudge
  /** Progress lines for the terminal. */
  log?: (line: string) => void
  /**
   * Share of runs (0..1) that may end in an agent crash or timeout before the gate fails; such runs
   * are `errored`, kept out of means and pass rates. Default 0.2.
   */
  maxErroredShare?: number
  /** Judging stops once the judge has cost this much (USD); runs left unjudged are reported. `--repeats auto` adds no round past it. */
  maxCostUsd?: number
  /** A fixed clock for the agent (ISO 8601), passed as SIEVE_EVAL_NOW so reruns are reproducible. */
  now?: string
  /**
   * The scorecard of a run's agent (the `scorecards` config section): a run whose card fails, on
   * a hard gate or on its weighted total, is a failed run whatever its checks say.
   */
  scorecardFor?: (trace: Trace) => Scorecard | undefined
}

export interface ExampleResult extends RunFigures {
  id: string
  bucket: GoldenExample['bucket']
  runs: RunResult[]
}

export interface GateReport {
  dataset: { path: string; version: string; examples: number }
  agent: string
  /** Runs per example made (with `--repeats auto`, where it stopped). */
  repeats: number
  /** How `--repeats auto` went: rounds, and why it stopped. */
  repeatsAuto?: AutoRepeats
  model: string
  examples: ExampleResult[]
  overall: { mean: number; passRate: number; runs: number; errored: number; notJudged: number }
  /** Each metric: baseline → now, Δ ± its 95% interval, the detectable drop, the verdict. */
  metrics: MetricResult[]
  /** The thresholds, level and zero-tolerance checks the verdict was made by. */
  policy: StatedPolicy
  /** What the figures were measured with, to tell two runs apart. */
  stamps: GateStamps
  /** The judge's totals, cost included; absent when the judge was off. */
  judge?: OverallJudge
  baseline: BaselineComparison | undefined
  verdict: 'pass' | 'warn' | 'fail'
  reasons: string[]
  warnings: string[]
  exitCode: 0 | 1 | 2
}

export interface GateStamps {
  runAt: string
  /** The fixed clock the agent was given, when one was. */
  agentNow?: string
  datasetVersion: string
  agent: { command: string; version: string; promptVersion: string }
  model: string
  judge?: { model: string; promptVersion: string; rubrics: string[] }
  /** Check name → version, for the checks the dataset expects. */
  checks: Record<string, string>
  scorerVersion: string
}
