import type { MetricResult, Settle, Thresholds, ZeroToleranceResult } from './metric-verdicts.js'

/*
 * How the metrics read, the same in the terminal, the Markdown summary and the reasons and
 * warnings: baseline → now, Δ ± its 95% interval, the verdict, the smallest detectable drop.
 */

const num = (x: number) => String(Math.round(x * 1000) / 1000)
const signed = (x: number) => (x > 0 ? `+${num(x)}` : x < 0 ? `−${num(-x)}` : '0')
const percent = (x: number) => `${Math.round(x * 1000) / 10}%`

/** `0 of 18 runs; the true rate may still be up to 15.3%`. */
export function zeroToleranceLine(r: ZeroToleranceResult): string {
  if (!r.runs) return 'no run scored'
  if (r.failed === r.runs) return `${r.failed} of ${r.runs} runs failed`
  const observed = r.failed ? `${r.failed} of ${r.runs} runs failed (${percent(r.rate)})` : `0 of ${r.runs} runs failed`
  return `${observed}; the true rate may ${r.failed ? '' : 'still '}be up to ${percent(r.upper95)}`
}

const settleText = (settle: Settle | null) =>
  settle === null
    ? 'no number of repeats would settle it: the change differs too much from example to example (add examples)'
    : `about ${settle.repeats} repeats per example${settle.withBaseline ? ', here and in a baseline recorded again with as many,' : ''} would settle it`

/** One row: metric, kind, baseline, now, Δ ± 95%, detectable drop, verdict. */
export function metricCells(r: MetricResult): string[] {
  if (r.kind === 'zero-tolerance') {
    const base = r.baseline ? `${r.baseline.failed} of ${r.baseline.runs} failed` : ''
    const now = r.runs ? `${r.failed} of ${r.runs} failed (≤ ${percent(r.upper95)})` : 'no run'
    return [r.name, 'zero tolerance', base, now, '', '', r.verdict]
  }
  const delta = r.delta ? `${signed(r.delta.value)} ± ${num((r.delta.high - r.delta.low) / 2)}` : ''
  const verdict = r.verdict
    ? `${r.verdict}${r.settle ? ` (≈ ${r.settle.repeats} repeats${r.settle.withBaseline ? ' both sides' : ''} to settle)` : ''}`
    : r.note
      ? r.note
      : '—'
  return [
    r.name,
    'graded',
    r.baseline ? num(r.baseline.mean) : '',
    num(r.now.mean),
    delta,
    r.detectableDrop !== undefined ? num(r.detectableDrop) : '',
    verdict,
  ]
}

const HEAD = ['metric', 'kind', 'baseline', 'now', 'Δ ± 95%', 'detectable drop', 'verdict']

export function metricsMarkdown(results: readonly MetricResult[]): string[] {
  return [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`, ...results.map((r) => `| ${metricCells(r).join(' | ')} |`)]
}

/** The same table for a terminal: columns padded to their widest cell. */
export function metricsTable(results: readonly MetricResult[]): string {
  const rows = [HEAD, ...results.map(metricCells)]
  const widths = HEAD.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return rows
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/**
 * Why the metrics fail the gate (reasons) and what they warn of: a zero-tolerance item that
 * failed in any run; a graded drop past a threshold, said with its interval and how it was decided.
 */
export function metricFindings(results: readonly MetricResult[], t: Thresholds): { reasons: string[]; warnings: string[] } {
  const reasons: string[] = []
  const warnings: string[] = []
  for (const r of results) {
    if (r.kind === 'zero-tolerance') {
      if (r.verdict === 'fail') reasons.push(`${r.name} (zero tolerance): ${zeroToleranceLine(r)}, in ${r.failing.join(', ')}`)
      continue
    }
    if (!r.delta || !r.baseline) {
      if (r.verdict === 'not enough data') warnings.push(`${r.name}: not enough data to compare with the baseline (${r.note})`)
      continue
    }
    const moved = `${r.name} ${num(r.baseline.mean)} → ${num(r.now.mean)} (Δ ${signed(r.delta.value)}, 95% interval ${signed(r.delta.low)} to ${signed(r.delta.high)}, one-sided p ${num(r.delta.p)})`
    if (r.verdict === 'fail')
      reasons.push(`${moved}: a drop past the fail threshold ${t.failThreshold}, distinguishable from noise at the ${t.significance} level`)
    else if (r.verdict === 'warn' && r.settle === undefined)
      warnings.push(`${moved}: a real drop past the warn threshold ${t.warnThreshold}, within the fail threshold ${t.failThreshold}`)
    else if (r.verdict === 'warn')
      warnings.push(
        `${moved}: a drop past the ${-r.delta.value > t.failThreshold ? 'fail' : 'warn'} threshold not yet distinguishable from noise at the ${t.significance} level; ${settleText(r.settle!)}`,
      )
  }
  return { reasons, warnings }
}

/** A report's outcome as the terminal shows it: the verdict, the metrics' table, why it fails and what it warns of. */
export function terminalReport(
  headline: string,
  r: { verdict: string; metrics: readonly MetricResult[]; reasons: readonly string[]; warnings: readonly string[] },
  more: readonly string[] = [],
): string {
  const list = (title: string, items: readonly string[]) => (items.length ? ['', title, ...items.map((x) => `  - ${x}`)] : [])
  return [
    `${headline}: ${r.verdict.toUpperCase()}`,
    ...more,
    '',
    metricsTable(r.metrics),
    ...list('Why it fails:', r.reasons),
    ...list('Warnings:', r.warnings),
  ].join('\n')
}
