import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { Trace } from '@sieve/core'
import { PROMPT_VERSION as JUDGE_PROMPT_VERSION, SCORER_VERSION, traceView, type CheckDefinition, type Scorecard } from '@sieve/scorer'
import type { GoldenExample } from '../dataset/golden-example.js'
import { checkProblems } from '../dataset/resolve-checks.js'
import { readDataset } from '../dataset/validate-dataset.js'
import { baselineKey, readBaseline, writeBaseline, type BaselineEntry } from './baseline.js'
import { exampleJudge, judgeFigures, judgeRegressions, overallJudge, type ExampleJudge, type OverallJudge } from './judge-figures.js'
import type { ReplayJudge, RunJudgement } from './replay-judge.js'
import { replaySession, turnInput, userTurnCount } from './replay-turns.js'
import { runAgent } from './run-agent.js'
import { replayScorecard, type RunScorecard } from './replay-scorecard.js'
import { replayTrace, scoreReplay, type ReplayCheck, type ReplayScore } from './score-replay.js'
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

export interface RunResult {
  /** Mean of the checks' values; the judge's weighted score for an example with no checks. */
  value: number
  passed: boolean
  /** Neither a check nor a judge verdict: an example with only a judge rubric whose judging failed. */
  unscored?: true
  /** The agent crashed or timed out: no score, kept out of means and pass rates (the reason is in `error`). */
  errored?: true
  /** The judge was not asked: the cost ceiling (--max-cost) was reached. */
  notJudged?: true
  traceId: string
  checks: ReplayCheck[]
  judge?: RunJudgement
  /** The agent's scorecard over the run's checks and judge verdict, when one is configured. */
  scorecard?: RunScorecard
  error?: string
}

export interface ExampleResult {
  id: string
  bucket: GoldenExample['bucket']
  runs: RunResult[]
  /** Over the scored runs. */
  mean: number
  passRate: number
  /** Runs that ended in an agent crash or timeout. */
  errored: number
  /**
   * pass: every run passed; unstable: some did (an instability); fail: none did (a capability gap);
   * unscored: no run could be scored (judge errors on a judge-only example); errored: every run
   * crashed or timed out.
   */
  status: 'pass' | 'unstable' | 'fail' | 'unscored' | 'errored'
  judge?: ExampleJudge
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
  baseline: { path: string; compared: boolean; note: string; overall?: { mean: number; passRate: number } } | undefined
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

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0)
const round = (x: number) => Math.round(x * 1000) / 1000

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
  const models = new Map<string, number>()
  let judgeReached = false
  const callsBefore = o.judge?.metrics.total('calls') ?? 0
  const runAt = new Date().toISOString()
  let judgeCost = 0
  const seen = { agentVersions: new Map<string, number>(), promptVersions: new Map<string, number>(), rubrics: new Set<string>() }
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
          receiver.take()
          const messages = turnInput(example.input.messages, answers, turn)
          const run = await runAgent(o.agent, { exampleId: example.id, messages, turn: turn + 1, turns, sessionId: `${example.id}-${r + 1}`, ...(o.now ? { now: o.now } : {}) }, receiver.endpoint, o.timeoutMs, o.cwd)
          if (index === 0 && r === 0 && turn === 0 && (run.exitCode === 127 || run.exitCode === null) && !run.timedOut) {
            throw new GateConfigError(`cannot run the agent '${o.agent}': ${run.stderr || `exit code ${run.exitCode}`}`)
          }
          const trace = replayTrace(receiver.take())
          if (trace) traces.push(trace)
          answers.push(trace ? (traceView(trace).finalAnswer?.text ?? '') : '')
          const failed = run.timedOut ? `timed out after ${o.timeoutMs} ms` : run.exitCode !== 0 ? `exit code ${run.exitCode}: ${run.stderr.split('\n').slice(-3).join(' ')}` : undefined
          if (failed) error = turns > 1 ? `turn ${turn + 1} of ${turns}: ${failed}` : failed
        }
        const trace = replaySession(traces)
        const score = scoreReplay(trace, example, o.checks)
        if (score.model) models.set(score.model, (models.get(score.model) ?? 0) + 1)
        if (trace) countVersions(trace, seen)
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
      const result = exampleResult(example, runs)
      results.push(result)
      const judged = result.judge?.mean !== undefined ? `  judge ${result.judge.mean} (pass rate ${result.judge.passRate})` : ''
      const crashed = result.errored ? `  errored ${result.errored} of ${runs.length}` : ''
      log(`${example.id}  ${result.status.padEnd(8)} mean ${result.mean}  pass rate ${result.passRate}${judged}${crashed}`)
    }
  } finally {
    await receiver.close()
  }

  const model = [...models.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ''
  const scored = results.filter((e) => e.status !== 'unscored' && e.status !== 'errored')
  const allRuns = results.flatMap((e) => e.runs)
  const overall = {
    mean: round(mean(scored.map((e) => e.mean))),
    passRate: round(mean(scored.map((e) => e.passRate))),
    runs: allRuns.length,
    errored: allRuns.filter((r) => r.errored).length,
    notJudged: allRuns.filter((r) => r.notJudged).length,
  }
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
    const judgeModel = o.judge?.model
    const entry = baselineFile.entries[baselineKey(version, model, judgeModel)]
    if (!entry) {
      baseline = { path: o.baseline, compared: false, note: `no baseline for dataset version ${version} and model ${model || '(unknown)'}${judgeModel ? ` judged by ${judgeModel}` : ''}` }
    } else {
      baseline = { path: o.baseline, compared: true, note: `baseline of ${entry.createdAt}`, overall: entry.overall }
      for (const e of scored) {
        const before = entry.examples[e.id]
        if (!before) continue
        e.baseline = before
        if (e.passRate < before.passRate) reasons.push(`regression on ${e.id}: pass rate ${before.passRate} → ${e.passRate}`)
        const judged = judgeRegressions(e.id, e.judge, before.judge, tolerance)
        reasons.push(...judged.reasons)
        if (judged.note) warnings.push(judged.note)
      }
    }
    if (o.updateBaseline) {
      const next: BaselineEntry = {
        datasetVersion: version,
        model,
        ...(judgeModel ? { judgeModel } : {}),
        createdAt: new Date().toISOString(),
        overall,
        examples: Object.fromEntries(
          scored.map((e) => {
            const judge = judgeFigures(e.judge)
            return [e.id, { mean: e.mean, passRate: e.passRate, ...(judge ? { judge } : {}) }]
          }),
        ),
      }
      writeBaseline(o.baseline, baselineFile, next)
    }
  }
  const verdict = reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass'
  const stamps: GateStamps = {
    runAt,
    ...(o.now ? { agentNow: o.now } : {}),
    datasetVersion: version,
    agent: { command: o.agent, version: mostSeen(seen.agentVersions), promptVersion: mostSeen(seen.promptVersions) },
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

/**
 * One run's outcome: the checks decide, and the judge too when it gave a verdict. A judge error
 * is not a low score: the run then stands on its checks alone, or is unscored when it has none.
 */
function runResult(score: ReplayScore, judge: RunJudgement | undefined, error: string | undefined, notJudged: boolean, scorecard?: RunScorecard): RunResult {
  const base = { traceId: score.traceId, checks: score.checks, ...(judge ? { judge } : {}), ...(scorecard ? { scorecard } : {}), ...(error ? { error } : {}), ...(notJudged ? { notJudged: true as const } : {}) }
  const result = checksAndJudge(base, score, judge, error, notJudged)
  // A failed scorecard (a hard gate, or its weighted total) fails a run that was scored at all.
  return scorecard && !scorecard.passed && !result.errored && !result.unscored ? { ...result, passed: false } : result
}

function checksAndJudge(base: Omit<RunResult, 'value' | 'passed'>, score: ReplayScore, judge: RunJudgement | undefined, error: string | undefined, notJudged: boolean): RunResult {
  // A crash or a timeout says nothing about the agent's answers: not a zero, not a pass.
  if (error) return { ...base, value: 0, passed: false, errored: true }
  // Past the cost ceiling, an example only the judge scores has no score at all.
  if (notJudged && !score.checks.length) return { ...base, value: 0, passed: false, unscored: true }
  if (score.checks.length) return { ...base, value: score.value, passed: score.passed && !error && judge?.passed !== false }
  // An example with only a judge rubric: no trace or a failed agent is a failed run, a judge error is none.
  if (!judge || error) return { ...base, value: judge?.score ?? 0, passed: false }
  if (judge.passed === undefined) return { ...base, value: 0, passed: false, unscored: true }
  return { ...base, value: judge.score ?? 0, passed: judge.passed }
}

function exampleResult(example: GoldenExample, runs: RunResult[]): ExampleResult {
  const errored = runs.filter((r) => r.errored).length
  const scored = runs.filter((r) => !r.unscored && !r.errored)
  const passRate = scored.length ? scored.filter((r) => r.passed).length / scored.length : 0
  const status = errored === runs.length ? 'errored' : !scored.length ? 'unscored' : passRate === 1 ? 'pass' : passRate === 0 ? 'fail' : 'unstable'
  const judge = exampleJudge(runs.flatMap((r) => (r.judge ? [r.judge] : [])))
  return {
    id: example.id,
    bucket: example.bucket,
    runs,
    mean: round(mean(scored.map((r) => r.value))),
    passRate: round(passRate),
    errored,
    status,
    ...(judge ? { judge } : {}),
  }
}

/** The agent and prompt versions each run's trace names, counted; the stamps keep the commonest. */
function countVersions(trace: Trace, seen: { agentVersions: Map<string, number>; promptVersions: Map<string, number> }): void {
  const view = traceView(trace)
  if (view.agentVersion) seen.agentVersions.set(view.agentVersion, (seen.agentVersions.get(view.agentVersion) ?? 0) + 1)
  if (view.promptVersion) seen.promptVersions.set(view.promptVersion, (seen.promptVersions.get(view.promptVersion) ?? 0) + 1)
}

const mostSeen = (counts: Map<string, number>): string => [...counts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ''
