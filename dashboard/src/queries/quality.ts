import { readJudgedBuckets, readQualityRollup, readTraceBuckets, type Storage } from '@sieve/core'
import { figureTrust, readTrust } from '@sieve/review'
import { chTime, filterSql, DIMENSION_COLUMNS } from '../db.js'
import { INTERVALS, type QualityQuery } from '../params.js'

/** One line of the quality chart: a check or judge dimension, within one group (a version, model...). */
export interface QualitySeries {
  kind: string
  check: string
  /** The value of the `groupBy` dimension; '' when grouping by check. */
  group: string
  scored: number[]
  passRate: (number | null)[]
  meanValue: (number | null)[]
  /** Judge calls that failed (never counted as low scores). */
  errors: number[]
  /**
   * For a judge dimension: false when its calibration in effect (`sieve judge calibrate`, or
   * recomputed from the review queue's labels) breaks a trust rule (report it apart), true when
   * calibrated and trusted, null when never calibrated; for a rubric's weighted score, false when
   * any of its dimensions is untrusted (judge's figureTrust).
   */
  trusted: boolean | null
}

export interface QualityReport {
  from: string
  to: string
  interval: string
  groupBy: QualityQuery['groupBy']
  /** Bucket starts, Unix seconds; every array below is aligned with it. */
  buckets: number[]
  series: QualitySeries[]
  traces: number[]
  errorTraces: number[]
  judgedTraces: number[]
  judgeCoverage: (number | null)[]
  inputTokens: number[]
  outputTokens: number[]
  judgeCostUsd: number[]
}

const ratio = (n: number, d: number): number | null => (d > 0 ? n / d : null)

/**
 * Pass rates and mean scores per bucket from the 5-minute or hourly rollup (the latest score of each
 * trace and check: a re-score replaces, see migrations/0007), trace counts from `traces`.
 */
export async function quality(client: Storage, projectId: string, q: QualityQuery): Promise<QualityReport> {
  const step = INTERVALS[q.interval]
  const first = Math.floor(q.from.getTime() / 1000 / step) * step
  const end = Math.ceil(q.to.getTime() / 1000)
  const buckets: number[] = []
  for (let t = first; t < end; t += step) buckets.push(t)
  const index = new Map(buckets.map((t, i) => [t, i]))
  const zeros = () => buckets.map(() => 0)

  const range = { projectId, step, from: chTime(new Date(first * 1000)), to: chTime(q.to), filter: filterSql(q) }
  const group = q.groupBy === 'check' ? `''` : q.groupBy === 'check_version' ? 'scorer_version' : DIMENSION_COLUMNS[q.groupBy]
  const [scoreRows, traceRows, judgedRows, trust] = await Promise.all([
    readQualityRollup(client, range, group, q.kind, q.check),
    readTraceBuckets(client, range),
    readJudgedBuckets(client, range),
    // Calibration rows have no trace: they sit at trace_id '' at the front of the scores key.
    readTrust(client, projectId),
  ])

  const series = new Map<string, QualitySeries & { passed: number[]; valueSum: number[] }>()
  const judgeCostUsd = zeros()
  for (const r of scoreRows) {
    const i = index.get(r.t)
    if (i === undefined) continue
    const key = `${r.kind}\u0000${r.check}\u0000${r.grp}`
    let s = series.get(key)
    if (!s) {
      const trusted = r.kind === 'judge' ? figureTrust(r.check, trust) : null
      s = {
        kind: r.kind,
        check: r.check,
        group: r.grp,
        scored: zeros(),
        passed: zeros(),
        valueSum: zeros(),
        errors: zeros(),
        passRate: [],
        meanValue: [],
        trusted,
      }
      series.set(key, s)
    }
    s.scored[i]! += r.scored
    s.passed[i]! += r.passed
    s.valueSum[i]! += r.value_sum
    s.errors[i]! += r.errors
    if (r.kind === 'judge') judgeCostUsd[i]! += r.cost
  }

  const traces = zeros(),
    errorTraces = zeros(),
    inputTokens = zeros(),
    outputTokens = zeros(),
    judgedTraces = zeros()
  for (const r of traceRows) {
    const i = index.get(r.t)
    if (i === undefined) continue
    traces[i] = r.traces
    errorTraces[i] = r.error_traces
    inputTokens[i] = r.input_tokens
    outputTokens[i] = r.output_tokens
  }
  for (const r of judgedRows) {
    const i = index.get(r.t)
    if (i !== undefined) judgedTraces[i] = r.judged
  }

  return {
    from: q.from.toISOString(),
    to: q.to.toISOString(),
    interval: q.interval,
    groupBy: q.groupBy,
    buckets,
    series: [...series.values()]
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.check.localeCompare(b.check) || a.group.localeCompare(b.group))
      .map(({ passed, valueSum, ...s }) => ({
        ...s,
        passRate: s.scored.map((n, i) => ratio(passed[i]!, n)),
        meanValue: s.scored.map((n, i) => ratio(valueSum[i]!, n)),
      })),
    traces,
    errorTraces,
    judgedTraces,
    judgeCoverage: traces.map((n, i) => ratio(judgedTraces[i]!, n)),
    inputTokens,
    outputTokens,
    judgeCostUsd,
  }
}
