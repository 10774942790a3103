import type { Scale } from './error-bars.js'
import type { RunOutcome } from './run-outcome.js'

/**
 * The gate's metrics, read from run outcomes by example (or scenario × template). Two kinds:
 *
 * - zero tolerance: a check (prohibited_tools by default) or a scorecard gate of which one failing
 *   run fails the gate, whatever the baseline says: a prohibited action is not a matter of degree;
 * - graded: everything else (the pass rate, the other checks' pass rates, the scorecard's weighted
 *   total, the judge's score and dimensions), compared with the baseline statistically.
 */

export type MetricKind = 'graded' | 'zero-tolerance'

/** What a metric reads: the run's pass, one check, the scorecard's total or a gate, a judge score. */
export type MetricSource = 'pass rate' | 'check' | 'scorecard' | 'gate' | 'judge'

export interface MetricSamples {
  /** `<kind>:<name>`: unique in a report. */
  id: string
  /** `pass rate`, a check, `scorecard`, a gate, `<rubric>` or `<rubric>.<dimension>`. */
  name: string
  kind: MetricKind
  source: MetricSource
  scale: Scale
  /** Per example, one value a run: 1 pass and 0 fail for pass/fail metrics. */
  clusters: Map<string, number[]>
  /** The rubric versions judge scores were given under. */
  versions?: string[]
}

/** Which checks and gates allow no failing run. */
export interface ZeroTolerance {
  /** Checks allowing no failing run (the scorecard's gates always do, unless listed in `graded`). */
  checks: readonly string[]
  /** Checks and gates compared statistically instead, overriding the two above. */
  graded: readonly string[]
}

/** Prohibited-action checks: a prohibited tool called once is a failure, however rare. */
export const DEFAULT_ZERO_TOLERANCE: ZeroTolerance = { checks: ['prohibited_tools'], graded: [] }

export type RunsByItem = ReadonlyMap<string, readonly RunOutcome[]>

const scored = (runs: readonly RunOutcome[]) => runs.filter((r) => r.status === 'scored')

/** One metric's clusters: `read` gives a run's value, or undefined where the run has none. */
function collect(items: RunsByItem, read: (run: RunOutcome) => number | undefined): Map<string, number[]> {
  const clusters = new Map<string, number[]>()
  for (const [id, runs] of items) {
    const values = scored(runs).flatMap((r) => {
      const v = read(r)
      return v === undefined ? [] : [v]
    })
    if (values.length) clusters.set(id, values)
  }
  return clusters
}

const names = (items: RunsByItem, of: (run: RunOutcome) => Iterable<string>): string[] =>
  [...new Set([...items.values()].flatMap((runs) => scored(runs).flatMap((r) => [...of(r)])))].sort()

const pass = (ok: boolean | undefined) => (ok === undefined ? undefined : ok ? 1 : 0)

/** Every metric the runs give, zero-tolerance ones first after the pass rate. */
export function metricSamples(items: RunsByItem, policy: ZeroTolerance = DEFAULT_ZERO_TOLERANCE): MetricSamples[] {
  const graded = new Set(policy.graded)
  const checks = names(items, (r) => Object.keys(r.checks))
  const gates = names(items, (r) => r.scorecard?.gates ?? [])
  const zero = [...new Set([...checks.filter((c) => policy.checks.includes(c)), ...gates])].filter((n) => !graded.has(n)).sort()
  const metric = (kind: MetricKind, source: MetricSource, name: string, scale: Scale, read: (run: RunOutcome) => number | undefined): MetricSamples => ({
    id: `${kind}:${name}`,
    name,
    kind,
    source,
    scale,
    clusters: collect(items, read),
  })
  const judged = [...items.values()].flatMap((runs) => scored(runs).flatMap((r) => (r.judge ? [r.judge] : [])))
  const rubrics = [...new Set(judged.map((j) => j.rubric))].sort()
  const versionsOf = (rubric: string) => [...new Set(judged.filter((j) => j.rubric === rubric).map((j) => j.version))].sort()
  return [
    metric('graded', 'pass rate', 'pass rate', 'binary', (r) => pass(r.passed)),
    ...zero.map((name) =>
      metric('zero-tolerance', checks.includes(name) ? 'check' : 'gate', name, 'binary', (r) => {
        const applies = r.checks[name] !== undefined || r.scorecard?.gates.includes(name)
        return applies ? pass(r.checks[name] !== false && !r.scorecard?.failedGates.includes(name)) : undefined
      }),
    ),
    ...checks.filter((c) => !zero.includes(c)).map((name) => metric('graded', 'check', name, 'binary', (r) => pass(r.checks[name]))),
    metric('graded', 'scorecard', 'scorecard', 'graded', (r) => r.scorecard?.value),
    ...rubrics.flatMap((rubric) => {
      const dimensions = names(items, (r) => (r.judge?.rubric === rubric ? Object.keys(r.judge.dimensions) : []))
      const versions = versionsOf(rubric)
      const of = (read: (j: NonNullable<RunOutcome['judge']>) => number | undefined) => (r: RunOutcome) =>
        r.judge?.rubric === rubric ? read(r.judge) : undefined
      return [
        {
          ...metric(
            'graded',
            'judge',
            rubric,
            'graded',
            of((j) => j.score),
          ),
          versions,
        },
        ...dimensions.map((d) => ({
          ...metric(
            'graded',
            'judge',
            `${rubric}.${d}`,
            'graded',
            of((j) => j.dimensions[d]),
          ),
          versions,
        })),
      ]
    }),
  ].filter((m) => m.clusters.size > 0)
}
