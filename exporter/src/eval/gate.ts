import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Trace } from '@sieve/core'
import { SCORER_VERSION, type CheckDefinition, type Scorecard } from '@sieve/scorer'
import { PROMPT_VERSION as JUDGE_PROMPT_VERSION } from '@sieve/judge'
import type { GoldenExample } from '../dataset/golden-example.js'
import { checkProblems } from '../dataset/resolve-checks.js'
import { readDataset } from '../dataset/validate-dataset.js'
import { agentCannotStart, callAgentTurn } from './agent-turn.js'
import { compareWithBaseline, readBaseline, writeBaseline, type BaselineComparison, type BaselineEntry } from './baseline.js'
import { overallJudge, type OverallJudge } from './judge-figures.js'
import type { ReplayJudge } from './replay-judge.js'
import { replaySession, turnInput, userTurnCount } from './replay-turns.js'
import { replayScorecard } from './replay-scorecard.js'
import { isScored, overallFigures, runFigures, runResult, type RunFigures, type RunResult } from './run-verdict.js'
import { scoreReplay } from './score-replay.js'
import { SeenVersions } from './seen-versions.js'
import { startSpanReceiver } from './span-receiver.js'

export type { RunResult } from './run-verdict.js'

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
  /** When given, every run of every example is judged, and a run the judge fails is a failed run. */
  judge?: ReplayJudge
  /** Largest drop of a judge score (0..1) below the baseline's that is not a regression; default 0.1. */
  judgeTolerance?: number
  cwd?: string
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

export class GateConfigError extends Error {
  readonly code = 'EVAL_CONFIG'
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
  const log = o.log ?? (() => {})
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
  const baselineFile = o.baseline ? readBaseline(o.baseline) : undefined
  const version = datasetVersion(o.dataset)
  const tolerance = o.judgeTolerance ?? 0.1

  const receiver = await startSpanReceiver()
  const results: ExampleResult[] = []
  const seen = new SeenVersions()
  let judgeReached = false
  const callsBefore = o.judge?.metrics.total('calls') ?? 0
  const runAt = new Date().toISOString()
  let judgeCost = 0
  try {
    for (const [index, { example }] of examples.entries()) {
      const runs: RunResult[] = []
      const turns = userTurnCount(example.input.messages)
      for (let r = 0; r < o.repeats; r++) {
        // One agent call per user turn; each sees the conversation so far with its own earlier answers.
        const traces: Trace[] = []
        const answers: string[] = []
        let error: string | undefined
        for (let turn = 0; turn < turns && !error; turn++) {
          const messages = turnInput(example.input.messages, answers, turn)
          const call = await callAgentTurn(o.agent, { exampleId: example.id, messages, turn: turn + 1, turns, sessionId: `${example.id}-${r + 1}`, ...(o.now ? { now: o.now } : {}) }, receiver, o.timeoutMs, o.cwd)
          if (index === 0 && r === 0 && turn === 0 && agentCannotStart(call.run)) {
            throw new GateConfigError(`cannot run the agent '${o.agent}': ${call.run.stderr || `exit code ${call.run.exitCode}`}`)
          }
          if (call.trace) traces.push(call.trace)
          answers.push(call.answer)
          if (call.error) error = turns > 1 ? `turn ${turn + 1} of ${turns}: ${call.error}` : call.error
        }
        const trace = replaySession(traces)
        const score = scoreReplay(trace, example.expected, o.checks)
        seen.addTrace(trace, score.model)
        const overBudget = o.maxCostUsd !== undefined && judgeCost >= o.maxCostUsd
        const judge = o.judge && trace && !error && !overBudget ? await o.judge.judgeRun(traces, o.judge.rubricFor(trace, example.expected.judge?.rubric), example.expected.judge?.floors) : undefined
        if (judge) {
          judgeCost += judge.costUsd
          seen.rubrics.add(`${judge.rubric}@${judge.rubricVersion}`)
        }
        if (judge?.unreachable && !judgeReached) {
          // Not one verdict yet and the endpoint is unreachable or refuses us: a setup problem, not a result.
          throw new GateConfigError(`the judge cannot be reached: ${judge.error}; check JUDGE_BASE_URL, JUDGE_API_KEY and JUDGE_MODEL, or run with --no-judge`)
        }
        if (judge && !judge.unreachable) judgeReached = true
        const card = trace && !error ? o.scorecardFor?.(trace) : undefined
        runs.push(runResult(score, judge, error, Boolean(o.judge && trace && !error && overBudget), card ? replayScorecard(card, score.checks, judge) : undefined))
      }
      const result: ExampleResult = { id: example.id, bucket: example.bucket, runs, ...runFigures(runs) }
      results.push(result)
      const judged = result.judge?.mean !== undefined ? `  judge ${result.judge.mean} (pass rate ${result.judge.passRate})` : ''
      const crashed = result.errored ? `  errored ${result.errored} of ${runs.length}` : ''
      log(`${example.id}  ${result.status.padEnd(8)} mean ${result.mean}  pass rate ${result.passRate}${judged}${crashed}`)
    }
  } finally {
    await receiver.close()
  }

  const model = seen.model
  const scored = results.filter(isScored)
  const allRuns = results.flatMap((e) => e.runs)
  const overall = overallFigures(results)
  const judgeTotals = o.judge
    ? overallJudge(o.judge.model, results.map((e) => e.judge), results.flatMap((e) => e.runs.flatMap((r) => (r.judge ? [r.judge] : []))), {
        calls: o.judge.metrics.total('calls') - callsBefore,
        priced: o.judge.priced,
      })
    : undefined
  const reasons: string[] = []
  const warnings: string[] = []
  if (o.failBelow !== undefined && overall.mean < o.failBelow) reasons.push(`mean score ${overall.mean} is below --fail-below ${o.failBelow}`)
  for (const e of scored) {
    if (e.bucket === 'known-failure' && e.passRate < 1) reasons.push(`known failure ${e.id} fails again (pass rate ${e.passRate})`)
  }
  if (o.warnBelow !== undefined && overall.mean < o.warnBelow) warnings.push(`mean score ${overall.mean} is below --warn-below ${o.warnBelow}`)
  for (const e of results) if (e.status === 'unstable') warnings.push(`${e.id} is unstable: passed ${e.runs.filter((r) => r.passed).length} of ${o.repeats} runs`)
  for (const e of results) if (e.status === 'unscored') warnings.push(`${e.id} is unscored: the judge gave no verdict on any run`)
  const maxErrored = o.maxErroredShare ?? 0.2
  if (overall.errored) {
    const share = overall.errored / Math.max(1, overall.runs)
    const line = `${overall.errored} of ${overall.runs} run(s) errored (agent crash or timeout), kept out of the means (first: ${allRuns.find((r) => r.errored)?.error})`
    if (share > maxErrored) reasons.push(`${line}: more than the allowed share ${maxErrored}`)
    else warnings.push(line)
  }
  if (overall.notJudged) {
    const unscored = results.filter((e) => e.status === 'unscored' && e.runs.some((r) => r.notJudged))
    const line = `the judge's cost ceiling of $${o.maxCostUsd} was reached: ${overall.notJudged} run(s) not judged`
    if (unscored.length) {
      // Examples only the judge can score got no verdict: the gate cannot say pass or fail.
      throw new GateConfigError(`${line}, leaving ${unscored.length} judge-only example(s) without a verdict (${unscored.slice(0, 3).map((e) => e.id).join(', ')}); raise --max-cost`)
    }
    warnings.push(line)
  }
  if (judgeTotals?.errors) {
    const first = results.flatMap((e) => e.runs).find((r) => r.judge?.error)?.judge?.error
    warnings.push(`judge errors on ${judgeTotals.errors} run(s), not counted as low scores (first: ${first})`)
  }

  let baseline: GateReport['baseline']
  if (o.baseline && baselineFile) {
    const key = { datasetVersion: version, model, ...(o.judge ? { judgeModel: o.judge.model } : {}) }
    const compared = compareWithBaseline(o.baseline, baselineFile, key, scored, tolerance)
    baseline = compared.baseline
    reasons.push(...compared.reasons)
    warnings.push(...compared.warnings)
    if (o.updateBaseline) writeBaseline(o.baseline, baselineFile, key, overall, scored)
  }
  const verdict = reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass'
  const stamps: GateStamps = {
    runAt,
    ...(o.now ? { agentNow: o.now } : {}),
    datasetVersion: version,
    agent: { command: o.agent, version: seen.agentVersion, promptVersion: seen.promptVersion },
    model,
    ...(o.judge ? { judge: { model: o.judge.model, promptVersion: JUDGE_PROMPT_VERSION, rubrics: [...seen.rubrics].sort() } } : {}),
    checks: Object.fromEntries([...new Set(examples.flatMap(({ example }) => Object.keys(example.expected.checks)))].sort().map((name) => [name, o.checks.find((c) => c.name === name)!.version])),
    scorerVersion: SCORER_VERSION,
  }
  return {
    dataset: { path: o.dataset, version, examples: results.length },
    agent: o.agent,
    repeats: o.repeats,
    model,
    examples: results,
    overall,
    stamps,
    ...(judgeTotals ? { judge: judgeTotals } : {}),
    baseline,
    verdict,
    reasons,
    warnings,
    exitCode: reasons.length ? 1 : 0,
  }
}
