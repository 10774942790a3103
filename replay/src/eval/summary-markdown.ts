import type { AutoRepeats } from './auto-repeats.js'
import type { BaselineComparison } from './baseline.js'
import type { ExampleResult, GateReport } from './gate.js'
import type { StatedPolicy } from './gate-statistics.js'
import type { OverallJudge } from './judge-figures.js'
import { metricsMarkdown, terminalReport } from './metric-report.js'
import type { MetricResult } from './metric-verdicts.js'
import type { RunJudgement } from './replay-judge.js'
import type { RunScorecard } from './replay-scorecard.js'

export function judgeLine(j: OverallJudge): string {
  const scores = j.mean === undefined ? 'no run could be judged' : `mean score **${j.mean}**, pass rate **${j.passRate}**`
  const errors = j.errors ? `, ${j.errors} run(s) with judge errors (not counted as low scores)` : ''
  const cost = j.priced ? `$${j.costUsd.toFixed(4)}` : `cost unknown (no price for ${j.model} in judge.prices)`
  return `Judge ${j.model}: ${scores} over ${j.judgedRuns} judged run(s)${errors}. ${j.calls} call(s), ${j.inputTokens} input / ${j.outputTokens} output tokens, ${cost}.`
}

export function judgeFailures(j: RunJudgement | undefined): string[] {
  if (!j) return []
  if (j.error) return ['judge error']
  const low = j.score !== undefined && j.score < j.passingThreshold ? [`${j.rubric} (judge)`] : []
  const floor = j.score !== undefined && j.scoreFloor !== undefined && j.score < j.scoreFloor ? [`${j.rubric} (floor)`] : []
  return [...low, ...floor, ...j.belowFloor.map((d) => `${j.rubric}.${d} (floor)`)]
}

export function scorecardFailures(card: RunScorecard | undefined): string[] {
  if (!card || card.passed) return []
  return card.failedGates.length ? card.failedGates.map((g) => `${g} (gate)`) : [`scorecard ${card.card} (${card.value})`]
}

/** What made an example's runs fail: checks by name, the judge's rubric or dimension floors, scorecard gates, agent errors. */
function failing(e: ExampleResult): string[] {
  const names = e.runs.flatMap((run) => [
    ...run.checks.filter((c) => !c.passed).map((c) => c.name),
    ...judgeFailures(run.judge),
    ...scorecardFailures(run.scorecard),
    ...(run.error ? ['agent error'] : []),
  ])
  return [...new Set(names)]
}

function judgeCell(e: ExampleResult): string {
  if (!e.judge) return ''
  return e.judge.mean === undefined ? 'error' : `${e.judge.mean} / ${e.judge.passRate}`
}

/** The repeats made: a number, or where `--repeats auto` stopped and why. */
export function repeatsLine(repeats: number, auto: AutoRepeats | undefined): string {
  return auto ? `${repeats} run(s) each (--repeats auto, ${auto.rounds} round(s): ${auto.detail})` : `${repeats} run(s) each`
}

/** The baseline in a sentence: what it was measured with and what changed, or why there is none; the items one side lacks. */
export function baselineLines(b: BaselineComparison | undefined, unit: string): string[] {
  if (!b) return []
  if (!b.compared) return ['', `Baseline not compared: ${b.note}.`]
  const oneSided = [
    ...(b.onlyNow.length ? [`${b.onlyNow.length} ${unit}(s) only in this run (${b.onlyNow.join(', ')})`] : []),
    ...(b.onlyBaseline.length ? [`${b.onlyBaseline.length} only in the baseline (${b.onlyBaseline.join(', ')})`] : []),
  ]
  return ['', `Baseline \`${b.path}\`: ${b.note}.${oneSided.length ? ` ${oneSided.join('; ')}: left out of the paired figures.` : ''}`]
}

/** How the metrics are decided, in one sentence, then their table. */
export function metricsSection(metrics: readonly MetricResult[], p: StatedPolicy): string[] {
  const zero = p.zeroTolerance.length ? `${p.zeroTolerance.join(', ')} and the scorecard's gates` : "the scorecard's gates"
  return [
    '',
    '### Metrics',
    '',
    `Zero tolerance (${zero}${p.graded.length ? `; graded instead: ${p.graded.join(', ')}` : ''}): one failing run fails. Graded: fails on a drop past ${p.failThreshold} distinguishable from noise (one-sided test at ${p.significance}), warns past ${p.warnThreshold}; Δ is now − baseline over the shared examples with its 95% interval, clustered by example; the detectable drop has ${p.power * 100}% power.`,
    '',
    ...metricsMarkdown(metrics),
  ]
}

/** The short Markdown summary a CI job posts: verdict, why, the metrics, and one row per example. */
export function summaryMarkdown(r: GateReport): string {
  const icon = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' }[r.verdict]
  const lines = [
    `## Sieve regression gate: ${icon}`,
    '',
    `Dataset \`${r.dataset.path}\` (version ${r.dataset.version}, ${r.dataset.examples} examples), agent \`${r.agent}\`, ${repeatsLine(r.repeats, r.repeatsAuto)}, model ${r.model || 'unknown'}.`,
    '',
    `${r.judge ? 'Mean check score' : 'Mean score'} **${r.overall.mean}**, pass rate${r.judge ? ' (checks and judge)' : ''} **${r.overall.passRate}**.`,
  ]
  if (r.judge) lines.push('', judgeLine(r.judge))
  lines.push(...baselineLines(r.baseline, 'example'))
  if (r.reasons.length) lines.push('', '### Why it fails', '', ...r.reasons.map((x) => `- ${x}`))
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((x) => `- ${x}`))
  lines.push(...metricsSection(r.metrics, r.policy))
  const judged = r.judge !== undefined
  lines.push(
    '',
    '### Examples',
    '',
    `| example | bucket | status | mean | pass rate |${judged ? ' judge mean / pass rate |' : ''} failing |`,
    `|---|---|---|---|---|${judged ? '---|' : ''}---|`,
  )
  for (const e of r.examples) {
    lines.push(`| ${e.id} | ${e.bucket} | ${e.status} | ${e.mean} | ${e.passRate} |${judged ? ` ${judgeCell(e)} |` : ''} ${failing(e).join(', ')} |`)
  }
  return `${lines.join('\n')}\n`
}

/** What `sieve eval` prints when it is done: the verdict, the metrics, why and what it warns of. */
export function gateTerminal(r: GateReport): string {
  const baseline = r.baseline ? [`baseline ${r.baseline.path}: ${r.baseline.note}`] : []
  return terminalReport(`sieve eval, ${r.dataset.examples} example(s), ${repeatsLine(r.repeats, r.repeatsAuto)}`, r, baseline)
}
