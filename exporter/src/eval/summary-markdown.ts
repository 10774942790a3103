import type { GateReport } from './gate.js'

/** The short Markdown summary a CI job posts: verdict, why, and one row per example. */
export function summaryMarkdown(r: GateReport): string {
  const icon = { pass: 'PASS', warn: 'WARN', fail: 'FAIL' }[r.verdict]
  const lines = [
    `## Sieve regression gate: ${icon}`,
    '',
    `Dataset \`${r.dataset.path}\` (version ${r.dataset.version}, ${r.dataset.examples} examples), agent \`${r.agent}\`, ${r.repeats} run(s) each, model ${r.model || 'unknown'}.`,
    '',
    `Mean score **${r.overall.mean}**, pass rate **${r.overall.passRate}**${r.baseline?.overall ? ` (baseline ${r.baseline.overall.mean} / ${r.baseline.overall.passRate})` : ''}.`,
  ]
  if (r.baseline && !r.baseline.compared) lines.push('', `Baseline not compared: ${r.baseline.note}.`)
  if (r.reasons.length) lines.push('', '### Why it fails', '', ...r.reasons.map((x) => `- ${x}`))
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((x) => `- ${x}`))
  lines.push('', '| example | bucket | status | mean | pass rate | baseline | failing checks |', '|---|---|---|---|---|---|---|')
  for (const e of r.examples) {
    const failing = [...new Set(e.runs.flatMap((run) => [...run.checks.filter((c) => !c.passed).map((c) => c.name), ...(run.error ? ['agent error'] : [])]))]
    const base = e.baseline ? `${e.baseline.passRate}` : ''
    lines.push(`| ${e.id} | ${e.bucket} | ${e.status} | ${e.mean} | ${e.passRate} | ${base} | ${failing.join(', ')} |`)
  }
  return `${lines.join('\n')}\n`
}
