import { GateConfigError } from './gate-config-error.js'
import type { ExampleResult, GateOptions, GateReport } from './gate-report.js'
import type { OverallJudge } from './judge-figures.js'

/** Why the gate fails (any reason: exit 1) and what it warns of (verdict warn, exit 0). */
export interface GateFindings {
  reasons: string[]
  warnings: string[]
}

type Limits = Pick<GateOptions, 'failBelow' | 'warnBelow' | 'maxErroredShare' | 'maxCostUsd'>

/**
 * What the examples' figures say against the gate's limits, before any baseline. Throws
 * GateConfigError when the cost ceiling left examples only the judge scores without a verdict.
 */
export function gateFindings(o: Limits, results: readonly ExampleResult[], overall: GateReport['overall'], judge: OverallJudge | undefined): GateFindings {
  const found: GateFindings = { reasons: [], warnings: [] }
  scoreFindings(found, o, results, overall)
  erroredFindings(found, o, results, overall)
  notJudgedFindings(found, o, results, overall)
  if (judge?.errors) {
    const first = results.flatMap((e) => e.runs).find((r) => r.judge?.error)?.judge?.error
    found.warnings.push(`judge errors on ${judge.errors} run(s), not counted as low scores (first: ${first})`)
  }
  return found
}

/**
 * An example that passes some runs and fails others is noise until the metrics say otherwise
 * (metric-verdicts.ts): it is shown, not warned of. A known failure failing in every run is the
 * failure back; failing in some, a warning (a zero-tolerance check failing there fails anyway).
 */
function scoreFindings({ reasons, warnings }: GateFindings, o: Limits, results: readonly ExampleResult[], overall: GateReport['overall']): void {
  if (o.failBelow !== undefined && overall.mean < o.failBelow) reasons.push(`mean score ${overall.mean} is below --fail-below ${o.failBelow}`)
  for (const e of results.filter((x) => x.bucket === 'known-failure')) {
    if (e.status === 'fail') reasons.push(`known failure ${e.id} fails again (pass rate ${e.passRate})`)
    if (e.status === 'unstable')
      warnings.push(`known failure ${e.id} failed again in ${scoredRuns(e) - passedRuns(e)} of ${scoredRuns(e)} runs (pass rate ${e.passRate})`)
  }
  if (o.warnBelow !== undefined && overall.mean < o.warnBelow) warnings.push(`mean score ${overall.mean} is below --warn-below ${o.warnBelow}`)
  for (const e of results) if (e.status === 'unscored') warnings.push(`${e.id} is unscored: the judge gave no verdict on any run`)
}

const scoredRuns = (e: ExampleResult) => e.runs.filter((r) => !r.errored && !r.unscored).length
const passedRuns = (e: ExampleResult) => e.runs.filter((r) => !r.errored && !r.unscored && r.passed).length

function erroredFindings({ reasons, warnings }: GateFindings, o: Limits, results: readonly ExampleResult[], overall: GateReport['overall']): void {
  if (!overall.errored) return
  const maxErrored = o.maxErroredShare ?? 0.2
  const share = overall.errored / Math.max(1, overall.runs)
  const first = results.flatMap((e) => e.runs).find((r) => r.errored)?.error
  const line = `${overall.errored} of ${overall.runs} run(s) errored (agent crash or timeout), kept out of the means (first: ${first})`
  if (share > maxErrored) reasons.push(`${line}: more than the allowed share ${maxErrored}`)
  else warnings.push(line)
}

function notJudgedFindings({ warnings }: GateFindings, o: Limits, results: readonly ExampleResult[], overall: GateReport['overall']): void {
  if (!overall.notJudged) return
  const unscored = results.filter((e) => e.status === 'unscored' && e.runs.some((r) => r.notJudged))
  const line = `the judge's cost ceiling of $${o.maxCostUsd} was reached: ${overall.notJudged} run(s) not judged`
  if (unscored.length) {
    // Examples only the judge can score got no verdict: the gate cannot say pass or fail.
    throw new GateConfigError(
      `${line}, leaving ${unscored.length} judge-only example(s) without a verdict (${unscored
        .slice(0, 3)
        .map((e) => e.id)
        .join(', ')}); raise --max-cost`,
    )
  }
  warnings.push(line)
}
