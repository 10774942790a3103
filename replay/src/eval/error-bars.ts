import { normalCdf, normalQuantile } from './distributions.js'

/*
 * Error bars for the gate, after Miller, "Adding Error Bars to Evals" (2024): the example is the
 * unit and its repeats are clustered. A figure is the mean over examples of each example's mean
 * over its runs; against a baseline, the paired difference over the examples both runs share.
 *
 * The variance of an example's difference d_i splits (Miller §5) into ω², how much the change
 * itself differs from example to example, and the noise of the two means, σ²/K_now + σ²/K_base.
 * The clustered variance of the mean difference, var(d_i)/n, estimates the whole; the noise part
 * alone is estimated from the repeats. The standard error used is the larger of the two (ω² is
 * never below zero), so a handful of examples whose differences agree by chance cannot make a
 * drop look certain, and a single example still gets an error bar from its repeats (one that holds
 * for that example only).
 *
 * σ² is estimated as if nothing had changed, from both sides' runs of the example: that is the
 * hypothesis the test weighs. For pass/fail it is p̃(1 − p̃) with one pass and one fail added to the
 * runs (p̃ = (passes + 1) / (runs + 2)), so that three passes out of three do not mean the example
 * can never fail; for graded values (a judge dimension, the scorecard's weighted total), the
 * variance within examples pooled over all of them.
 */

/** One metric's runs: each example's (or scenario × template's) values in [0, 1], one per run. */
export type Clusters = ReadonlyMap<string, readonly number[]>

/** Pass/fail outcomes (0 or 1) or graded values. */
export type Scale = 'binary' | 'graded'

export interface Estimate {
  /** Mean over examples of each example's mean over its runs. */
  mean: number
  /** Its standard error, clustered by example; undefined when nothing says how noisy it is (one run of one graded example). */
  se: number | undefined
  examples: number
  runs: number
}

export interface PairedDifference {
  /** Examples both sides ran, sorted; the figures below are over these only. */
  shared: string[]
  /** Examples one side ran and the other did not: left out of the figures. */
  onlyNow: string[]
  onlyBaseline: string[]
  now: Estimate
  baseline: Estimate
  /** now − baseline: negative is a drop. */
  delta: number
  se: number | undefined
  /** What `se` is made of, to project other numbers of repeats. */
  noise: NoiseModel | undefined
}

/**
 * What the standard error of a paired difference is made of, per example: ω² (the change's own
 * spread across examples), the run-to-run variance σ², and the variance of the baseline's example
 * means (fixed: its runs are done; 'rerun' for a rerun with as many repeats as now). seAt(K) is the
 * standard error had every example run K times now.
 */
export interface NoiseModel {
  examples: number
  omega2: number
  /** Mean over examples of the run-to-run variance σ². */
  sigma2: number
  baselineVariance: number | 'rerun'
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0)
const avg = (xs: readonly number[]) => sum(xs) / xs.length
const sampleVariance = (xs: readonly number[]) => {
  const m = avg(xs)
  return sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1)
}

/** The examples with at least one run. */
const filled = (clusters: Clusters): Map<string, readonly number[]> => new Map([...clusters].filter(([, runs]) => runs.length > 0))

/**
 * σ² of each example, over the runs of every side given: p̃(1 − p̃) for pass/fail; for graded values
 * the within-example variance pooled over every example and side with two or more runs
 * (undefined when none has).
 */
function runVariances(sides: readonly Clusters[], ids: readonly string[], scale: Scale): Map<string, number> | undefined {
  const runsOf = (id: string) => sides.map((side) => side.get(id) ?? [])
  if (scale === 'binary') {
    return new Map(
      ids.map((id) => {
        const runs = runsOf(id).flat()
        const p = (sum(runs) + 1) / (runs.length + 2)
        return [id, p * (1 - p)]
      }),
    )
  }
  const repeated = ids.flatMap(runsOf).filter((runs) => runs.length > 1)
  if (!repeated.length) return undefined
  const pooled = sum(repeated.map((runs) => sampleVariance(runs) * (runs.length - 1))) / sum(repeated.map((runs) => runs.length - 1))
  return new Map(ids.map((id) => [id, pooled]))
}

/** The larger of two variance estimates, either of which may be unknown. */
const larger = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b))

/**
 * The mean over examples and its standard error clustered by example: the larger of the spread of
 * the example means (var / n) and the noise of those means from their repeats (Σ σ²_i/K_i / n²).
 */
export function clusteredMean(clusters: Clusters, scale: Scale): Estimate | undefined {
  const rows = filled(clusters)
  if (!rows.size) return undefined
  const means = [...rows.values()].map(avg)
  const n = means.length
  const sigma = runVariances([rows], [...rows.keys()], scale)
  const between = n > 1 ? sampleVariance(means) / n : undefined
  const noise = sigma ? sum([...rows].map(([id, runs]) => sigma.get(id)! / runs.length)) / n ** 2 : undefined
  const variance = larger(between, noise)
  return { mean: avg(means), se: variance === undefined ? undefined : Math.sqrt(variance), examples: n, runs: sum([...rows.values()].map((r) => r.length)) }
}

/**
 * now − baseline over the examples both share. `baselineRuns: false` is a baseline that kept
 * per-example means only (one value each): its noise is unknown, so only the spread of the
 * differences counts.
 */
export function pairedDifference(now: Clusters, baseline: Clusters, scale: Scale, baselineRuns = true): PairedDifference | undefined {
  const a = filled(now)
  const b = filled(baseline)
  const shared = [...a.keys()].filter((id) => b.has(id)).sort()
  if (!shared.length) return undefined
  const nowShared = new Map(shared.map((id) => [id, a.get(id)!]))
  const baseShared = new Map(shared.map((id) => [id, b.get(id)!]))
  const differences = shared.map((id) => avg(nowShared.get(id)!) - avg(baseShared.get(id)!))
  const n = shared.length
  const sigma = runVariances(baselineRuns ? [nowShared, baseShared] : [nowShared], shared, scale)
  const noiseNow = sigma && avg(shared.map((id) => sigma.get(id)! / nowShared.get(id)!.length))
  const noiseBase = sigma && baselineRuns ? avg(shared.map((id) => sigma.get(id)! / baseShared.get(id)!.length)) : undefined
  const spread = n > 1 ? sampleVariance(differences) : undefined
  const perExample = larger(spread, noiseNow !== undefined && noiseBase !== undefined ? noiseNow + noiseBase : undefined)
  const noise: NoiseModel | undefined =
    perExample !== undefined && sigma && noiseNow !== undefined
      ? {
          examples: n,
          omega2: Math.max(0, perExample - noiseNow - (noiseBase ?? 0)),
          sigma2: avg(shared.map((id) => sigma.get(id)!)),
          baselineVariance: noiseBase ?? 0,
        }
      : undefined
  return {
    shared,
    onlyNow: [...a.keys()].filter((id) => !b.has(id)).sort(),
    onlyBaseline: [...b.keys()].filter((id) => !a.has(id)).sort(),
    now: clusteredMean(nowShared, scale)!,
    baseline: clusteredMean(baseShared, baselineRuns ? scale : 'graded')!,
    delta: avg(differences),
    se: perExample === undefined ? undefined : Math.sqrt(perExample / n),
    noise,
  }
}

/**
 * The noise of a rerun of the same agent paired with this run, for a run with no baseline to
 * compare with: the example means' noise on both sides, and no ω² (nothing changed).
 */
export function rerunNoise(clusters: Clusters, scale: Scale): NoiseModel | undefined {
  const rows = filled(clusters)
  if (!rows.size) return undefined
  const sigma = runVariances([rows], [...rows.keys()], scale)
  if (sigma) return { examples: rows.size, omega2: 0, sigma2: avg([...sigma.values()]), baselineVariance: 'rerun' }
  // One run per graded example: the spread across examples bounds the noise from above.
  const means = [...rows.values()].map(avg)
  return means.length < 2 ? undefined : { examples: rows.size, omega2: 0, sigma2: sampleVariance(means), baselineVariance: 'rerun' }
}

/** The standard error of the paired difference had every example run `repeats` times now. */
export function seAt(model: NoiseModel, repeats: number): number {
  const now = model.sigma2 / repeats
  const base = model.baselineVariance === 'rerun' ? now : model.baselineVariance
  return Math.sqrt((model.omega2 + now + base) / model.examples)
}

export interface TestLevel {
  /** One-sided significance level of the test for a drop. */
  alpha: number
  /** Power the detectable drop is stated at. */
  power: number
}

export const DEFAULT_LEVEL: TestLevel = { alpha: 0.05, power: 0.8 }

/** The smallest drop the one-sided test at `alpha` detects with `power`, for this standard error. */
export function detectableDrop(se: number, level: TestLevel = DEFAULT_LEVEL): number {
  return (normalQuantile(1 - level.alpha) + normalQuantile(level.power)) * se
}

/** The two-sided 95% interval of a difference. */
export function interval95(delta: number, se: number): { low: number; high: number } {
  const z = normalQuantile(0.975)
  return { low: delta - z * se, high: delta + z * se }
}

/** One-sided p-value for a drop: the chance of a difference this low or lower if nothing changed. */
export function dropPValue(delta: number, se: number): number {
  if (se === 0) return delta < 0 ? 0 : 1
  return normalCdf(delta / se)
}

/** Whether a drop is distinguishable from zero: the one-sided test at `alpha` rejects "no drop". */
export function isDistinguishableDrop(delta: number, se: number, level: TestLevel = DEFAULT_LEVEL): boolean {
  return delta < 0 && dropPValue(delta, se) < level.alpha
}

/**
 * The fewest repeats per example now that would detect a drop of `drop` with the stated power;
 * undefined when no number up to `most` would (the baseline's own noise, or the change's spread
 * across examples, is already too large: that takes more examples or a baseline with more repeats).
 */
export function repeatsToDetect(model: NoiseModel, drop: number, level: TestLevel = DEFAULT_LEVEL, most = 10_000): number | undefined {
  const detects = (k: number) => detectableDrop(seAt(model, k), level) <= drop
  if (!(drop > 0) || !detects(most)) return undefined
  let low = 0
  let high = most
  while (high - low > 1) {
    const mid = Math.floor((low + high) / 2)
    if (detects(mid)) high = mid
    else low = mid
  }
  return high
}
