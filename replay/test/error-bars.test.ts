import assert from 'node:assert/strict'
import { test } from 'node:test'
import { normalCdf, normalQuantile, rateUpperBound } from '../src/eval/distributions.js'
import {
  clusteredMean,
  detectableDrop,
  dropPValue,
  isDistinguishableDrop,
  pairedDifference,
  repeatsToDetect,
  rerunNoise,
  seAt,
} from '../src/eval/error-bars.js'
import { gradedVerdict } from '../src/eval/metric-verdicts.js'

const close = (actual: number, expected: number, within = 1e-3) => assert.ok(Math.abs(actual - expected) <= within, `${actual} is not ${expected} ± ${within}`)
const clusters = (o: Record<string, number[]>) => new Map(Object.entries(o))

test('the normal quantile and distribution function give the textbook critical values', () => {
  close(normalQuantile(0.975), 1.959964, 1e-6)
  close(normalQuantile(0.95), 1.644854, 1e-6)
  close(normalQuantile(0.8), 0.841621, 1e-6)
  close(normalQuantile(0.001), -3.090232, 1e-6)
  close(normalCdf(1.959964), 0.975, 1e-6)
  close(normalCdf(-1.644854), 0.05, 1e-6)
  assert.throws(() => normalQuantile(1), /0 < p < 1/)
})

test("a rate's 95% upper bound is the exact one-sided Clopper-Pearson bound: 0 of 18 runs may still be 15.3%", () => {
  close(rateUpperBound(0, 18), 1 - 0.05 ** (1 / 18), 1e-12)
  close(rateUpperBound(0, 18), 0.153)
  assert.ok(rateUpperBound(0, 18) < 3 / 18, 'tighter than the rule of three, its large-n approximation')
  close(rateUpperBound(0, 300), 3 / 300, 2e-4)
  // Published one-sided 95% bounds: 1 of 10 → 0.394, 2 of 20 → 0.283.
  close(rateUpperBound(1, 10), 0.3942)
  close(rateUpperBound(2, 20), 0.2826)
  assert.equal(rateUpperBound(5, 5), 1)
  assert.equal(rateUpperBound(0, 0), 1)
})

test('the mean weighs examples equally, and its standard error is clustered by example: repeats of one example are not independent', () => {
  const uneven = clusteredMean(clusters({ a: [1, 1, 1, 1, 1, 1, 1, 1], b: [0] }), 'binary')!
  assert.equal(uneven.mean, 0.5, 'not 8 / 9: the example is the unit')
  assert.deepEqual([uneven.examples, uneven.runs], [2, 9])
  // Four examples whose ten runs always agree: ten repeats add nothing over one, and the error bar says so.
  const agreeing = clusters({ a: Array(10).fill(1), b: Array(10).fill(1), c: Array(10).fill(0), d: Array(10).fill(0) })
  const clustered = clusteredMean(agreeing, 'binary')!.se!
  const naive = Math.sqrt((0.5 * 0.5) / 40)
  close(clustered, Math.sqrt(1 / 3) / 2)
  assert.ok(clustered > 3 * naive, `clustered ${clustered} against ${naive} treating the 40 runs as independent`)
  // One graded run of one example: nothing says how noisy it is.
  assert.equal(clusteredMean(clusters({ a: [0.7] }), 'graded')!.se, undefined)
  // Pass/fail runs always have a spread: three passes out of three are not a certainty.
  assert.ok(clusteredMean(clusters({ a: [1, 1, 1] }), 'binary')!.se! > 0.2)
})

test('the paired difference is taken over the examples both sides share, the others listed', () => {
  const now = clusters({ a: [1, 1, 0], b: [1, 1, 1], c: [0, 0, 0] })
  const base = clusters({ a: [1, 1, 1], b: [1, 1, 1], d: [1] })
  const d = pairedDifference(now, base, 'binary')!
  assert.deepEqual([d.shared, d.onlyNow, d.onlyBaseline], [['a', 'b'], ['c'], ['d']])
  close(d.delta, -1 / 6)
  assert.deepEqual([d.now.examples, d.baseline.examples], [2, 2])
  assert.equal(pairedDifference(clusters({ a: [1] }), clusters({ b: [1] }), 'binary'), undefined)
})

test('pairing takes out how examples differ from each other: the same small drop everywhere is found among very different examples', () => {
  const levels = [0.2, 0.4, 0.6, 0.8, 1]
  const base = clusters(Object.fromEntries(levels.map((l, i) => [`e${i}`, [l, l, l, l]])))
  const now = clusters(Object.fromEntries(levels.map((l, i) => [`e${i}`, [l - 0.15, l - 0.1, l - 0.1, l - 0.05]])))
  const paired = pairedDifference(now, base, 'graded')!
  close(paired.delta, -0.1)
  const unpaired = Math.hypot(clusteredMean(now, 'graded')!.se!, clusteredMean(base, 'graded')!.se!)
  assert.ok(paired.se! < unpaired / 5, `paired ${paired.se} against ${unpaired} unpaired`)
  assert.equal(isDistinguishableDrop(paired.delta, paired.se!), true)
  assert.equal(gradedVerdict(paired.delta, paired.se!, paired.noise, { failThreshold: 0.05, warnThreshold: 0.02, significance: 0.05 }).verdict, 'fail')
})

test('a baseline with per-example figures only is compared on the spread of the differences alone', () => {
  const now = clusters({ a: [1, 1, 0, 1], b: [1, 0, 1, 1], c: [1, 1, 1, 1] })
  const legacy = clusters({ a: [1], b: [0.75], c: [1] })
  const d = pairedDifference(now, legacy, 'binary', false)!
  close(d.delta, -1 / 12)
  const differences = [-0.25, 0, 0]
  const mean = -1 / 12
  close(d.se!, Math.sqrt(differences.reduce((s, x) => s + (x - mean) ** 2, 0) / 2 / 3))
  assert.equal(
    pairedDifference(clusters({ a: [1, 0] }), clusters({ a: [1] }), 'binary', false)!.se,
    undefined,
    'one example and no baseline noise: nothing to go on',
  )
})

test('the detectable drop is (z of the level + z of 80% power) standard errors; the repeats that reach a target follow from the noise model', () => {
  close(detectableDrop(0.04), (1.644854 + 0.841621) * 0.04, 1e-6)
  close(detectableDrop(0.04, { alpha: 0.01, power: 0.9 }), (2.326348 + 1.281552) * 0.04, 1e-6)
  const noise = rerunNoise(clusters({ a: [1, 0, 1], b: [1, 1, 1], c: [0, 1, 1], d: [1, 1, 0] }), 'binary')!
  const k = repeatsToDetect(noise, 0.1)!
  assert.ok(detectableDrop(seAt(noise, k)) <= 0.1 && detectableDrop(seAt(noise, k - 1)) > 0.1, `${k} is the fewest`)
  // The baseline's own noise floors what more repeats now can reach.
  assert.equal(repeatsToDetect({ examples: 4, omega2: 0, sigma2: 0.2, baselineVariance: 0.1 }, 0.1), undefined)
})

test('a drop is distinguishable when the one-sided test rejects "no drop" at the level; a rise never is', () => {
  close(dropPValue(-0.1, 0.05), normalCdf(-2), 1e-9)
  assert.equal(isDistinguishableDrop(-0.1, 0.05), true)
  assert.equal(isDistinguishableDrop(-0.07, 0.05), false)
  assert.equal(isDistinguishableDrop(-0.07, 0.05, { alpha: 0.1, power: 0.8 }), true)
  assert.equal(isDistinguishableDrop(0.3, 0.01), false)
  assert.equal(isDistinguishableDrop(-0.01, 0), true, 'no noise at all: any drop is real')
})

test('the verdict: fail past the fail threshold and distinguishable; warn past the warn threshold, with the repeats that would settle it; pass within it', () => {
  const t = { failThreshold: 0.1, warnThreshold: 0.05, significance: 0.05 }
  const noise = { examples: 10, omega2: 0, sigma2: 0.2, baselineVariance: 0.002 }
  assert.deepEqual(gradedVerdict(-0.2, 0.05, noise, t), { verdict: 'fail', distinguishable: true })
  const unsettled = gradedVerdict(-0.2, 0.15, noise, t)
  assert.equal(unsettled.verdict, 'warn')
  assert.deepEqual(unsettled.settle, { repeats: repeatsToDetect(noise, 0.2), withBaseline: false })
  assert.deepEqual(gradedVerdict(-0.08, 0.02, noise, t), { verdict: 'warn', distinguishable: true }, 'real, but within the fail threshold')
  assert.deepEqual(gradedVerdict(-0.04, 0.01, noise, t), { verdict: 'pass', distinguishable: true }, 'real, within the warn threshold')
  assert.equal(gradedVerdict(-0.05, 0.2, noise, t).verdict, 'pass', 'a drop equal to the warn threshold is not past it')
  // The baseline's own noise in the way: this run and a baseline recorded again, both with as many repeats.
  const noisyBaseline = { ...noise, baselineVariance: 1 }
  assert.deepEqual(gradedVerdict(-0.3, 0.3, noisyBaseline, t).settle, {
    repeats: repeatsToDetect({ ...noisyBaseline, baselineVariance: 'rerun' }, 0.3),
    withBaseline: true,
  })
  // The change's own spread across examples does not shrink with repeats.
  assert.equal(gradedVerdict(-0.3, 0.3, { ...noise, omega2: 10 }, t).settle, null, 'no number of repeats would')
})
