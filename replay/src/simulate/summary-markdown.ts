import { terminalReport } from '../eval/metric-report.js'
import { baselineLines, judgeLine, metricsSection, repeatsLine } from '../eval/summary-markdown.js'
import type { SimulationReport } from './simulate.js'
import type { FailingItem, VariantResult } from './variant-result.js'

const where = (f: FailingItem) =>
  [f.first.turn !== undefined ? `turn ${f.first.turn}` : '', f.first.spanId ? `span ${f.first.spanId}` : ''].filter(Boolean).join(', ')

function failingCell(v: VariantResult): string {
  return v.failing
    .map((f) => {
      const at = where(f)
      return `${f.kind === 'gate' ? `${f.name} (gate)` : f.kind === 'check' ? f.name : `${f.name}`}${at ? ` (${at})` : ''}${f.runs < v.runs.length ? ` ×${f.runs}` : ''}`
    })
    .join('; ')
}

const stopsCell = (v: VariantResult) =>
  Object.entries(v.stops)
    .map(([reason, n]) => (v.runs.length > 1 ? `${reason} ×${n}` : reason))
    .join(', ')

/** The short Markdown summary a CI job posts: verdict, why, and one row per scenario × template. */
export function simulationSummary(r: SimulationReport): string {
  const icon = { pass: 'PASS', warn: 'WARN', fail: 'FAIL', error: 'ERROR' }[r.verdict]
  const users = [...new Set(r.variants.map((v) => v.user))].map((u) => (u === 'llm' ? `LLM (${r.stamps.simulator?.model})` : 'scripted')).join(' and ')
  const c = r.cost
  const lines = [
    `## Sieve simulation: ${icon}`,
    '',
    `Scenarios ${r.scenarios.paths.map((p) => `\`${p}\``).join(', ')} (version ${r.scenarios.version}, ${r.scenarios.count} scenario(s), ${r.variants.length} scenario × template), agent \`${r.agent}\`, ${repeatsLine(r.repeats, r.repeatsAuto)}, ${users} users, model ${r.stamps.model || 'unknown'}.`,
    '',
    `Pass rate **${r.overall.passRate}** (${r.overall.passed} of ${r.overall.runs - r.overall.incomplete - r.overall.errored} counted run(s) passed${r.overall.incomplete ? `, ${r.overall.incomplete} cut short` : ''}${r.overall.errored ? `, ${r.overall.errored} errored` : ''}). ` +
      `Cost: simulator $${c.simulatorUsd.toFixed(4)} (${c.simulatorCalls} call(s)) + judge $${c.judgeUsd.toFixed(4)} = $${c.totalUsd.toFixed(4)}${c.maxCostUsd !== undefined ? ` of a $${c.maxCostUsd} ceiling${c.reached ? ' (reached)' : ''}` : ''}${c.priced ? '' : ' (some models have no price: spend counted in part)'}.`,
  ]
  if (r.judge) lines.push('', judgeLine(r.judge))
  if (r.stored)
    lines.push(
      '',
      `Stored in Sieve at ${r.stored.endpoint}: ${r.stored.traces} trace(s), ${r.stored.spans} span(s), tagged \`sieve.simulation.run_id = ${r.stored.runId}\`${r.stored.failedRuns ? `; ${r.stored.failedRuns} run(s) not stored` : ''}.`,
    )
  lines.push(...baselineLines(r.baseline, 'scenario × template'))
  if (r.reasons.length) lines.push('', r.verdict === 'error' ? '### Why it could not decide' : '### Why it fails', '', ...r.reasons.map((x) => `- ${x}`))
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((x) => `- ${x}`))
  lines.push(...metricsSection(r.metrics, r.policy))
  lines.push(
    '',
    '### Scenarios',
    '',
    '| scenario | template | user | status | pass rate | turns | stopped | failing (where first seen) | cost |',
    '|---|---|---|---|---|---|---|---|---|',
  )
  for (const v of r.variants) {
    const turns = v.turns.min === v.turns.max ? `${v.turns.min}` : `${v.turns.min}–${v.turns.max}`
    lines.push(
      `| ${v.scenario} | ${v.template} | ${v.user} | ${v.status} | ${v.passRate} | ${turns} | ${stopsCell(v)} | ${failingCell(v)} | $${v.costUsd.toFixed(4)} |`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** What `sieve simulate` prints when it is done: the verdict, the metrics, why and what it warns of. */
export function simulationTerminal(r: SimulationReport): string {
  const baseline = r.baseline ? [`baseline ${r.baseline.path}: ${r.baseline.note}`] : []
  return terminalReport(`sieve simulate, ${r.variants.length} scenario × template(s), ${repeatsLine(r.repeats, r.repeatsAuto)}`, r, baseline)
}
