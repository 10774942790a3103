import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { SCORER_VERSION } from '@sieve/scoring'
import { PROMPT_VERSION as JUDGE_PROMPT_VERSION } from '@sieve/judging'
import { checkProblems, readDataset, type GoldenExample } from '@sieve/dataset'
import { repeatRounds, type AutoRepeats } from './auto-repeats.js'
import { readBaseline, writeBaseline, type BaselineStamps } from './baseline.js'
import { GateConfigError } from './gate-config-error.js'
import { gateFindings } from './gate-findings.js'
import { AUTO_START_REPEATS } from './gate-policy.js'
import { gateStatistics, resolvePolicy, statedPolicy } from './gate-statistics.js'
import { overallJudge, type OverallJudge } from './judge-figures.js'
import type { ReplayJudge } from './replay-judge.js'
import { replayExamples } from './replay-examples.js'
import { runOutcome, type RunOutcome } from './run-outcome.js'
import { overallFigures } from './run-verdict.js'
import { SeenVersions } from './seen-versions.js'
import type { ExampleResult, GateOptions, GateReport, GateStamps } from './gate-report.js'

export type { RunResult } from './run-verdict.js'
export { GateConfigError } from './gate-config-error.js'
export type { ExampleResult, GateOptions, GateReport, GateStamps } from './gate-report.js'

/** The dataset's version for baselines: a hash of its content, so an edited dataset is a new version. */
export function datasetVersion(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex').slice(0, 16)
}

/**
 * Replays every example through the agent (`repeats` times, or as many as `auto` decides), scores
 * each run with the example's expected checks (and the judge when given), compares with the
 * baseline and decides: exit 0 pass (or warn), 1 a regression, a zero-tolerance failure or a known
 * failure failing again, 2 configuration error (raised as GateConfigError, also when the judge
 * cannot be reached at all).
 */
export async function runGate(o: GateOptions): Promise<GateReport> {
  const policy = resolvePolicy({ ...o.policy, repeats: o.repeats }, o.checks)
  const examples = gateExamples(o)
  const baselineFile = o.baseline ? readBaseline(o.baseline) : undefined
  const version = datasetVersion(o.dataset)
  const seen = new SeenVersions()
  const callsBefore = o.judge?.metrics.total('calls') ?? 0
  const runAt = new Date().toISOString()
  const baseline = o.baseline ? { path: o.baseline, file: baselineFile } : undefined
  const statistics = (results: readonly ExampleResult[]) =>
    gateStatistics(outcomesOf(results), baselineStamps(gateStamps(o, examples, seen, { runAt, version })), policy, baseline, 'dataset')
  let made: { repeats: number; auto?: AutoRepeats } = { repeats: 0 }
  const { value: results, warnings: replayWarnings } = await replayExamples(o, examples, seen, async (round, current, judgeCost) => {
    made = await repeatRounds(
      policy.repeats,
      {
        start: AUTO_START_REPEATS,
        items: examples.length,
        compared: Boolean(baselineFile),
        maxRepeats: policy.maxRepeats,
        failThreshold: policy.failThreshold,
        ...(o.maxCostUsd !== undefined ? { maxCostUsd: o.maxCostUsd } : {}),
      },
      round,
      () => ({ results: statistics(current()).metrics, spend: { usd: judgeCost(), runs: current().reduce((n, e) => n + e.runs.length, 0) } }),
      o.log ?? (() => {}),
    )
  })

  const model = seen.model
  const overall = overallFigures(results)
  const judgeTotals = o.judge ? judgeTotalsOf(o.judge, results, callsBefore) : undefined
  const found = gateFindings(o, results, overall, judgeTotals)
  found.warnings.push(...replayWarnings)
  const stamps = gateStamps(o, examples, seen, { runAt, version })
  const stats = statistics(results)
  found.reasons.push(...stats.reasons)
  found.warnings.push(...stats.warnings)
  if (o.baseline && o.updateBaseline) writeBaseline(o.baseline, baselineStamps(stamps), made.repeats, outcomesOf(results))
  const { reasons, warnings } = found
  return {
    dataset: { path: o.dataset, version, examples: results.length },
    agent: o.agent,
    repeats: made.repeats,
    ...(made.auto ? { repeatsAuto: made.auto } : {}),
    model,
    examples: results,
    overall,
    metrics: stats.metrics,
    policy: statedPolicy(policy),
    stamps,
    ...(judgeTotals ? { judge: judgeTotals } : {}),
    baseline: stats.baseline,
    verdict: reasons.length ? 'fail' : warnings.length ? 'warn' : 'pass',
    reasons,
    warnings,
    exitCode: reasons.length ? 1 : 0,
  }
}

/** Each example's runs as the metrics read them and the baseline keeps them. */
const outcomesOf = (results: readonly ExampleResult[]): Map<string, RunOutcome[]> => new Map(results.map((e) => [e.id, e.runs.map(runOutcome)]))

/** The report's stamps as a baseline keeps them. */
export const baselineStamps = (s: GateStamps & { simulator?: { model: string } }): BaselineStamps => ({
  datasetVersion: s.datasetVersion,
  agentVersion: s.agent.version,
  promptVersion: s.agent.promptVersion,
  model: s.model,
  ...(s.judge ? { judgeModel: s.judge.model, judgePromptVersion: s.judge.promptVersion } : {}),
  ...(s.simulator ? { simulatorModel: s.simulator.model } : {}),
  scorerVersion: s.scorerVersion,
  checks: s.checks,
})

/** The dataset's examples, once every problem that would make the gate's verdict meaningless is ruled out. */
function gateExamples(o: GateOptions): GoldenExample[] {
  const contents = readDataset(o.dataset)
  const { examples, problems } = contents
  if (problems.length) throw new GateConfigError(`${o.dataset} has ${problems.length} invalid line(s); run \`sieve dataset validate ${o.dataset}\``)
  if (!examples.length) throw new GateConfigError(`${o.dataset} holds no examples`)
  // Before any agent runs: a check the dataset names that this Sieve cannot run is a setup error.
  const unresolved = checkProblems(contents, o.checks)
  if (unresolved.length) {
    throw new GateConfigError(
      `${o.dataset}: ${unresolved
        .slice(0, 5)
        .map((p) => `line ${p.line}: ${p.field}: ${p.message}`)
        .join('; ')}${unresolved.length > 5 ? `; and ${unresolved.length - 5} more` : ''}`,
    )
  }
  const judgeOnly = examples.filter(({ example }) => !Object.keys(example.expected.checks).length).map(({ example }) => example.id)
  if (judgeOnly.length && !o.judge) {
    throw new GateConfigError(
      `${judgeOnly.length} example(s) are scored by the judge alone (${judgeOnly.slice(0, 3).join(', ')}${judgeOnly.length > 3 ? ', …' : ''}): configure the judge (JUDGE_MODEL, JUDGE_BASE_URL) or run without --no-judge`,
    )
  }
  return examples.map(({ example }) => example)
}

function judgeTotalsOf(judge: ReplayJudge, results: readonly ExampleResult[], callsBefore: number): OverallJudge {
  const runs = results.flatMap((e) => e.runs.flatMap((r) => (r.judge ? [r.judge] : [])))
  return overallJudge(
    judge.model,
    results.map((e) => e.judge),
    runs,
    { calls: judge.metrics.total('calls') - callsBefore, priced: judge.priced },
  )
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
