import { zodProblems } from '@sieve/core'
import { baselineOf, compareWithBaseline, type BaselineComparison, type BaselineFile, type BaselineStamps } from './baseline.js'
import { GateConfigError } from './gate-config-error.js'
import { gatePolicySchema, zeroToleranceOf, type GatePolicy, type GatePolicyInput } from './gate-policy.js'
import { metricFindings } from './metric-report.js'
import { metricResults, type MetricResult } from './metric-verdicts.js'
import { metricSamples, type RunsByItem } from './metrics.js'

/** The policy a report states it decided by. */
export interface StatedPolicy {
  failThreshold: number
  warnThreshold: number
  /** One-sided level of the test for a drop. */
  significance: number
  /** Power the detectable drop is stated at. */
  power: number
  /** Checks and gates where one failing run fails, besides the scorecard's gates. */
  zeroTolerance: string[]
  graded: string[]
}

export interface Statistics {
  metrics: MetricResult[]
  baseline?: BaselineComparison
  reasons: string[]
  warnings: string[]
}

/** The policy, validated (a programmatic caller's values too): a bad value is a configuration error naming it. */
export function resolvePolicy(input: GatePolicyInput, checks: readonly { name: string }[]): GatePolicy {
  const parsed = gatePolicySchema.safeParse(input)
  if (!parsed.success) throw new GateConfigError(zodProblems(parsed.error).join('; '))
  const unknown = parsed.data.zeroTolerance.filter((name) => !checks.some((c) => c.name === name))
  if (unknown.length)
    throw new GateConfigError(
      `--zero-tolerance ${unknown.join(', ')}: no check of that name (known: ${checks
        .map((c) => c.name)
        .sort()
        .join(', ')})`,
    )
  return parsed.data
}

export const statedPolicy = (p: GatePolicy): StatedPolicy => ({
  failThreshold: p.failThreshold,
  warnThreshold: p.warnThreshold,
  significance: p.significance,
  power: 0.8,
  zeroTolerance: zeroToleranceOf(p).checks.filter((c) => !p.graded.includes(c)),
  graded: p.graded,
})

/**
 * The metrics of a gate's (or a simulation's) runs by item, compared with the baseline when one is
 * given: every metric's figures and verdict, and what they add to the reasons and warnings.
 */
export function gateStatistics(
  items: RunsByItem,
  stamps: BaselineStamps,
  policy: GatePolicy,
  baseline: { path: string; file: BaselineFile | undefined } | undefined,
  what: string,
): Statistics {
  const zero = zeroToleranceOf(policy)
  const metrics = metricSamples(items, zero)
  const compared = baseline
    ? compareWithBaseline(baseline.file && baselineOf(baseline.path, baseline.file, stamps), baseline.path, stamps, metrics, zero, what)
    : undefined
  const results = metricResults(metrics, compared?.samples, policy)
  const { reasons, warnings } = metricFindings(results, policy)
  for (const r of compared?.comparison.refused ?? []) warnings.push(`${r.metrics.join(', ')} not compared with the baseline: ${r.reason}`)
  return { metrics: results, ...(compared ? { baseline: compared.comparison } : {}), reasons, warnings }
}
