import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Trace } from '@sieve/core'
import { SCORER_VERSION, type CheckDefinition, type Scorecard } from '@sieve/scorer'
import { PROMPT_VERSION as JUDGE_PROMPT_VERSION } from '@sieve/judge'
import type { GoldenExample } from '../dataset/golden-example.js'
import { checkProblems } from '../dataset/resolve-checks.js'
import { readDataset } from '../dataset/validate-dataset.js'
import { compareWithBaseline, readBaseline, writeBaseline, type BaselineComparison, type BaselineEntry, type BaselineFile, type BaselineKey } from './baseline.js'
import { GateConfigError } from './gate-config-error.js'
import { gateFindings, type GateFindings } from './gate-findings.js'
import { overallJudge, type OverallJudge } from './judge-figures.js'
import type { ReplayJudge } from './replay-judge.js'
import { replayExamples } from './replay-examples.js'
import { isScored, overallFigures, type RunFigures, type RunResult } from './run-verdict.js'
import { SeenVersions } from './seen-versions.js'
import type { AgentTarget } from './agent-turn.js'

export type { RunResult } from './run-verdict.js'
export { GateConfigError } from './gate-config-error.js'

export interface GateOptions extends AgentTarget {
  dataset: string
  repeats: number
  failBelow?: number
  warnBelow?: number
  baseline?: string
  updateBaseline: boolean
  checks: readonly CheckDefinition[]
  /** When given, every run of every example is judged, and a run the judge fails is a failed run. */
  judge?: ReplayJudge
  /** Largest drop of a judge score (0..1) below the baseline's that is not a regression; default 0.1. */
  judgeTolerance?: number
  /** Progress lines for the terminal. */
  log?: (line: string) => void
  /**
   * Share of runs (0..1) that may end in an agent crash or timeout before the gate fails; such runs
   * are `errored`, kept out of means and pass rates. Default 0.2.
   */
  maxErroredShare?: number
  /** Judging stops once the judge has cost this much (USD); runs left unjudged are reported. */
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
  baseline?: BaselineEntry['examples'][string]
}

export interface GateReport {
  dataset: { path: string; version: string; examples: number }
  agent: string
  repeats: number
  model: string
  examples: ExampleResult[]
  overall: { mean: number; passRate: number; runs: number; errored: number; notJudged: number }
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

/** The dataset's version for baselines: a hash of its content, so an edited dataset is a new version. */
export function datasetVersion(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16)
}

/**
 * Replays every example `repeats` times through the agent, scores each run with the example's
 * expected checks (and the judge when given), compares with the baseline and decides: exit 0 pass
 * (or warn), 1 regression or a known failure failing again, 2 configuration error (raised as
 * GateConfigError, also when the judge cannot be reached at all).
 */
export async function runGate(o: GateOptions): Promise<GateReport> {
  const examples = gateExamples(o)
  const baselineFile = o.baseline ? readBaseline(o.baseline) : undefined
  const version = datasetVersion(o.dataset)
  const seen = new SeenVersions()
  const callsBefore = o.judge?.metrics.total('calls') ?? 0
  const runAt = new Date().toISOString()
  const { value: results, warnings: replayWarnings } = await replayExamples(o, examples, seen)

  const model = seen.model
  const overall = overallFigures(results)
  const judgeTotals = o.judge ? judgeTotalsOf(o.judge, results, callsBefore) : undefined
  const found = gateFindings(o, results, overall, judgeTotals)
  found.warnings.push(...replayWarnings)
  const key = { datasetVersion: version, model, ...(o.judge ? { judgeModel: o.judge.model } : {}) }
  const baseline = o.baseline && baselineFile ? compareBaseline(o, { path: o.baseline, file: baselineFile, key }, results, overall, found) : undefined
  const { reasons, warnings } = found
  return {
    dataset: { path: o.dataset, version, examples: results.length },
    agent: o.agent,
    repeats: o.repeats,
    model,
    examples: results,
    overall,
    stamps: gateStamps(o, examples, seen, { runAt, version }),
    ...(judgeTotals ? { judge: judgeTotals } : {}),
    baseline,
    verdict: reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass',
    reasons,
    warnings,
    exitCode: reasons.length ? 1 : 0,
  }
}

/** The dataset's examples, once every problem that would make the gate's verdict meaningless is ruled out. */
function gateExamples(o: GateOptions): GoldenExample[] {
  const contents = readDataset(o.dataset)
  const { examples, problems } = contents
  if (problems.length) throw new GateConfigError(`${o.dataset} has ${problems.length} invalid line(s); run \`sieve dataset validate ${o.dataset}\``)
  if (!examples.length) throw new GateConfigError(`${o.dataset} holds no examples`)
  // Before any agent runs: a check the dataset names that this Sieve cannot run is a setup error.
  const unresolved = checkProblems(contents, o.checks)
  if (unresolved.length) {
    throw new GateConfigError(`${o.dataset}: ${unresolved.slice(0, 5).map((p) => `line ${p.line}: ${p.field}: ${p.message}`).join('; ')}${unresolved.length > 5 ? `; and ${unresolved.length - 5} more` : ''}`)
  }
  const judgeOnly = examples.filter(({ example }) => !Object.keys(example.expected.checks).length).map(({ example }) => example.id)
  if (judgeOnly.length && !o.judge) {
    throw new GateConfigError(`${judgeOnly.length} example(s) are scored by the judge alone (${judgeOnly.slice(0, 3).join(', ')}${judgeOnly.length > 3 ? ', …' : ''}): configure the judge (JUDGE_MODEL, JUDGE_BASE_URL) or run without --no-judge`)
  }
  return examples.map(({ example }) => example)
}

/** Regressions against the baseline stored under `key` are added to `found`; the run's figures replace it when asked. */
function compareBaseline(o: GateOptions, stored: { path: string; file: BaselineFile; key: BaselineKey }, results: readonly ExampleResult[], overall: GateReport['overall'], found: GateFindings): BaselineComparison {
  const scored = results.filter(isScored)
  const compared = compareWithBaseline(stored.path, stored.file, stored.key, scored, o.judgeTolerance ?? 0.1)
  found.reasons.push(...compared.reasons)
  found.warnings.push(...compared.warnings)
  if (o.updateBaseline) writeBaseline(stored.path, stored.file, stored.key, overall, scored)
  return compared.baseline
}

function judgeTotalsOf(judge: ReplayJudge, results: readonly ExampleResult[], callsBefore: number): OverallJudge {
  const runs = results.flatMap((e) => e.runs.flatMap((r) => (r.judge ? [r.judge] : [])))
  return overallJudge(judge.model, results.map((e) => e.judge), runs, { calls: judge.metrics.total('calls') - callsBefore, priced: judge.priced })
}

function gateStamps(o: GateOptions, examples: readonly GoldenExample[], seen: SeenVersions, run: { runAt: string; version: string }): GateStamps {
  const expected = [...new Set(examples.flatMap((example) => Object.keys(example.expected.checks)))].sort()
  return {
    runAt: run.runAt,
    ...(o.now ? { agentNow: o.now } : {}),
    datasetVersion: run.version,
    agent: { command: o.agent, version: seen.agentVersion, promptVersion: seen.promptVersion },
    model: seen.model,
    ...(o.judge ? { judge: { model: o.judge.model, promptVersion: JUDGE_PROMPT_VERSION, rubrics: [...seen.rubrics].sort() } } : {}),
    checks: Object.fromEntries(expected.map((name) => [name, o.checks.find((c) => c.name === name)!.version])),
    scorerVersion: SCORER_VERSION,
  }
}
