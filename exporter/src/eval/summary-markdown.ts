import type { ExampleResult, GateReport } from './gate.js'
import type { OverallJudge } from './judge-figures.js'
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
  const score = e.judge.mean === undefined ? 'error' : `${e.judge.mean} / ${e.judge.passRate}`
  const base = e.baseline?.judge ? ` (was ${e.baseline.judge.mean})` : ''
  return `${score}${base}`
}

/** The short Markdown summary a CI job posts: verdict, why, and one row per example. */
export function summaryMarkdown(r: GateReport): string {
  const icon = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' }[r.verdict]
  const lines = [
    `## Sieve regression gate: ${icon}`,
    '',
    `Dataset \`${r.dataset.path}\` (version ${r.dataset.version}, ${r.dataset.examples} examples), agent \`${r.agent}\`, ${r.repeats} run(s) each, model ${r.model || 'unknown'}.`,
    '',
    `${r.judge ? 'Mean check score' : 'Mean score'} **${r.overall.mean}**, pass rate${r.judge ? ' (checks and judge)' : ''} **${r.overall.passRate}**${r.baseline?.overall ? ` (baseline ${r.baseline.overall.mean} / ${r.baseline.overall.passRate})` : ''}.`,
  ]
  if (r.judge) lines.push('', judgeLine(r.judge))
  if (r.baseline && !r.baseline.compared) lines.push('', `Baseline not compared: ${r.baseline.note}.`)
  if (r.reasons.length) lines.push('', '### Why it fails', '', ...r.reasons.map((x) => `- ${x}`))
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((x) => `- ${x}`))
  const judged = r.judge !== undefined
  lines.push(
    '',
    `| example | bucket | status | mean | pass rate | baseline |${judged ? ' judge mean / pass rate |' : ''} failing |`,
    `|---|---|---|---|---|---|${judged ? '---|' : ''}---|`,
  )
  for (const e of r.examples) {
    const base = e.baseline ? `${e.baseline.passRate}` : ''
    lines.push(`| ${e.id} | ${e.bucket} | ${e.status} | ${e.mean} | ${e.passRate} | ${base} |${judged ? ` ${judgeCell(e)} |` : ''} ${failing(e).join(', ')} |`)
  }
  return `${lines.join('\n')}\n`
}
