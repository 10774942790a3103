import { rateUpperBound } from './distributions.js'
import {
  clusteredMean,
  detectableDrop,
  dropPValue,
  interval95,
  isDistinguishableDrop,
  pairedDifference,
  repeatsToDetect,
  rerunNoise,
  seAt,
  type NoiseModel,
  type TestLevel,
} from './error-bars.js'
import type { GatePolicy } from './gate-policy.js'
import type { MetricKind, MetricSamples, MetricSource } from './metrics.js'

/** A metric's verdict against the baseline: `not enough data` when the figures cannot say. */
export type MetricVerdict = 'pass' | 'warn' | 'fail' | 'not enough data'

export interface Figure {
  mean: number
  /** Clustered by example; absent when nothing says how noisy the figure is. */
  se?: number
  examples: number
  runs: number
}

interface MetricHead {
  id: string
  name: string
  kind: MetricKind
  source: MetricSource
}

export interface GradedResult extends MetricHead {
  kind: 'graded'
  now: Figure
  /** Over the examples both runs share, as `now` is then too. */
  baseline?: Figure
  /** now − baseline (negative: a drop), its standard error, 95% interval and one-sided p-value for a drop. */
  delta?: { value: number; se: number; low: number; high: number; p: number }
  /** The smallest drop this run could have detected (80% power, at the configured level). */
  detectableDrop?: number
  /** The repeats per example at which a drop of the fail threshold would be detectable; null when none would. */
  repeatsForFailThreshold?: number | null
  /** Absent when not compared (no baseline, or a baseline refused for this metric: `note`). */
  verdict?: MetricVerdict
  /** A warning's drop not yet distinguishable: the repeats per example that would settle it; null when none would. */
  settle?: Settle | null
  note?: string
}

export interface ZeroToleranceResult extends MetricHead {
  kind: 'zero-tolerance'
  failed: number
  runs: number
  rate: number
  /** The one-sided 95% upper bound on the failure rate (exact, Clopper-Pearson), runs taken as independent. */
  upper95: number
  /** Examples with a failing run. */
  failing: string[]
  baseline?: { failed: number; runs: number }
  verdict: 'pass' | 'fail' | 'not enough data'
}

export type MetricResult = GradedResult | ZeroToleranceResult

/**
 * The repeats per example that would detect a drop of this size (80% power): this run's alone
 * against the baseline as it is, or, when the baseline's own noise stands in the way, this run's
 * and a baseline recorded again with as many (`withBaseline`).
 */
export interface Settle {
  repeats: number
  withBaseline: boolean
}

export type Thresholds = Pick<GatePolicy, 'failThreshold' | 'warnThreshold' | 'significance'>

/** The baseline's metrics, as far as they may be compared. */
export interface BaselineSamples {
  metrics: readonly MetricSamples[]
  /** False for a baseline that kept per-example figures only. */
  perRun: boolean
  /** Metric id → why it is not compared (another judge model, scorer or check version...). */
  refused: ReadonlyMap<string, string>
}

export const levelOf = (t: Thresholds): TestLevel => ({ alpha: t.significance, power: 0.8 })

const round = (x: number) => Math.round(x * 1000) / 1000
// Figures are rounded to 0.001 in reports: a drop equal to a threshold at that precision is not past it.
const past = (drop: number, threshold: number) => round(drop) > threshold
/** The most repeats per example a projection looks at. */
const MOST_REPEATS = 1000

function settleAt(noise: NoiseModel, drop: number, t: Thresholds): Settle | null {
  const alone = repeatsToDetect(noise, drop, levelOf(t), MOST_REPEATS)
  if (alone !== undefined) return { repeats: alone, withBaseline: false }
  const both = repeatsToDetect({ ...noise, baselineVariance: 'rerun' }, drop, levelOf(t), MOST_REPEATS)
  return both === undefined ? null : { repeats: both, withBaseline: true }
}

/**
 * The verdict on a paired difference: fail when the drop is past the fail threshold and
 * distinguishable from zero by the one-sided test; warn when past the warn threshold otherwise
 * (with, when not yet distinguishable, the repeats per example that would detect a drop this size);
 * pass when within the warn threshold.
 */
export function gradedVerdict(
  delta: number,
  se: number,
  noise: NoiseModel | undefined,
  t: Thresholds,
): { verdict: 'pass' | 'warn' | 'fail'; distinguishable: boolean; settle?: Settle | null } {
  const drop = -delta
  const distinguishable = isDistinguishableDrop(delta, se, levelOf(t))
  if (past(drop, t.failThreshold) && distinguishable) return { verdict: 'fail', distinguishable }
  if (!past(drop, t.warnThreshold)) return { verdict: 'pass', distinguishable }
  if (distinguishable) return { verdict: 'warn', distinguishable }
  return { verdict: 'warn', distinguishable, settle: noise ? settleAt(noise, drop, t) : null }
}

const figureOf = (e: { mean: number; se: number | undefined; examples: number; runs: number }): Figure => ({
  mean: round(e.mean),
  ...(e.se !== undefined ? { se: round(e.se) } : {}),
  examples: e.examples,
  runs: e.runs,
})

function zeroTolerance(m: MetricSamples, base: MetricSamples | undefined): ZeroToleranceResult {
  const count = (s: MetricSamples) => {
    const runs = [...s.clusters.values()].flat()
    return { failed: runs.filter((v) => v === 0).length, runs: runs.length }
  }
  const { failed, runs } = count(m)
  return {
    id: m.id,
    name: m.name,
    kind: 'zero-tolerance',
    source: m.source,
    failed,
    runs,
    rate: runs ? round(failed / runs) : 0,
    upper95: round(rateUpperBound(failed, runs)),
    failing: [...m.clusters].filter(([, v]) => v.includes(0)).map(([id]) => id),
    ...(base ? { baseline: count(base) } : {}),
    verdict: failed ? 'fail' : runs ? 'pass' : 'not enough data',
  }
}

/** What a noise model says of power: the drop detectable at `repeats`, and the repeats that make the fail threshold detectable. */
function power(noise: NoiseModel, repeats: number, t: Thresholds): Pick<GradedResult, 'detectableDrop' | 'repeatsForFailThreshold'> {
  return {
    detectableDrop: round(detectableDrop(seAt(noise, repeats), levelOf(t))),
    repeatsForFailThreshold: repeatsToDetect(noise, t.failThreshold, levelOf(t), MOST_REPEATS) ?? null,
  }
}

const meanRepeats = (m: MetricSamples) => [...m.clusters.values()].reduce((n, v) => n + v.length, 0) / m.clusters.size

function graded(m: MetricSamples, against: BaselineSamples | undefined, t: Thresholds): GradedResult {
  const head = { id: m.id, name: m.name, kind: 'graded' as const, source: m.source }
  const now = figureOf(clusteredMean(m.clusters, m.scale)!)
  // With nothing to compare against, what a rerun of the same agent with as many repeats could detect.
  const rerun = rerunNoise(m.clusters, m.scale)
  const alone: GradedResult = { ...head, now, ...(rerun ? power(rerun, meanRepeats(m), t) : {}) }
  if (!against) return alone
  const refused = against.refused.get(m.id)
  if (refused) return { ...alone, note: `not compared: ${refused}` }
  const base = against.metrics.find((b) => b.id === m.id)
  if (!base) return { ...alone, verdict: 'not enough data', note: 'the baseline has no figures for it' }
  const paired = pairedDifference(m.clusters, base.clusters, m.scale, against.perRun)
  if (!paired) return { ...alone, verdict: 'not enough data', note: 'no example in common with the baseline' }
  const figures = { ...alone, now: figureOf(paired.now), baseline: figureOf(paired.baseline) }
  if (paired.se === undefined) return { ...figures, verdict: 'not enough data', note: 'one run of one example: nothing says how noisy it is' }
  // A difference of figures in [0, 1] lies in [-1, 1]: the interval is not drawn past that.
  const { low, high } = interval95(paired.delta, paired.se)
  const decided = gradedVerdict(paired.delta, paired.se, paired.noise, t)
  return {
    ...figures,
    delta: {
      value: round(paired.delta),
      se: round(paired.se),
      low: round(Math.max(-1, low)),
      high: round(Math.min(1, high)),
      p: round(dropPValue(paired.delta, paired.se)),
    },
    detectableDrop: round(detectableDrop(paired.se, levelOf(t))),
    ...(paired.noise ? { repeatsForFailThreshold: repeatsToDetect(paired.noise, t.failThreshold, levelOf(t), MOST_REPEATS) ?? null } : {}),
    verdict: decided.verdict,
    ...(decided.settle !== undefined ? { settle: decided.settle } : {}),
  }
}

/**
 * Every metric's figures and verdict: zero-tolerance ones on this run alone, graded ones against
 * the baseline when there is one (paired on the examples both share).
 */
export function metricResults(now: readonly MetricSamples[], against: BaselineSamples | undefined, t: Thresholds): MetricResult[] {
  return now.map((m) =>
    m.kind === 'zero-tolerance'
      ? zeroTolerance(
          m,
          against?.metrics.find((b) => b.id === m.id),
        )
      : graded(m, against, t),
  )
}
