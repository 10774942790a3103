/**
 * The few distribution functions the gate's error bars need, with no dependency: the standard
 * normal's quantile and distribution function, and an exact upper confidence bound for a rate.
 */

/**
 * The standard normal quantile: z with P(Z ≤ z) = p. Acklam's rational approximation (relative
 * error below 1.2e-9 over (0, 1)), plenty for critical values and power.
 */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normalQuantile needs 0 < p < 1 (got ${p})`)
  const a = [-39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239]
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572]
  const c = [-0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783]
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416]
  const tail = (q: number) =>
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) / ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)))
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)))
  const q = p - 0.5
  const r = q * q
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) / (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  )
}

/** P(Z ≤ z) for the standard normal, from the complementary error function (Numerical Recipes' erfc, error below 1.2e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2
  const t = 1 / (1 + 0.5 * x)
  const erfc =
    t *
    Math.exp(
      -x * x -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    )
  return z >= 0 ? 1 - erfc / 2 : erfc / 2
}

/** P(X ≤ k) for X ~ Binomial(n, p), summed in log space so large n does not underflow. */
function binomialCdf(k: number, n: number, p: number): number {
  if (p <= 0) return 1
  if (p >= 1) return k >= n ? 1 : 0
  let logTerm = n * Math.log(1 - p) // P(X = 0)
  let sum = Math.exp(logTerm)
  for (let i = 1; i <= k; i++) {
    logTerm += Math.log((n - i + 1) / i) + Math.log(p / (1 - p))
    sum += Math.exp(logTerm)
  }
  return Math.min(1, sum)
}

/**
 * The exact (Clopper-Pearson) one-sided upper bound on a rate after `failures` of `runs`: the
 * largest rate under which seeing this few failures still has probability 1 - confidence. For no
 * failure it is 1 - (1 - confidence)^(1/runs): 0 of 18 runs gives 15.3% at 95% (the rule of
 * three's 3/n, 16.7%, is its large-n approximation).
 */
export function rateUpperBound(failures: number, runs: number, confidence = 0.95): number {
  if (runs <= 0) return 1
  if (failures >= runs) return 1
  const alpha = 1 - confidence
  if (failures === 0) return 1 - alpha ** (1 / runs)
  let low = failures / runs
  let high = 1
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2
    if (binomialCdf(failures, runs, mid) > alpha) low = mid
    else high = mid
  }
  return high
}
