import { z } from 'zod'
import { DEFAULT_ZERO_TOLERANCE, type ZeroTolerance } from './metrics.js'

const share = () => z.coerce.number({ error: 'must be a number' }).gt(0, 'must be above 0').max(1, 'must be at most 1')
const whole = (least: number) =>
  z.coerce.number({ error: 'must be a number' }).int('must be a whole number').min(least, `must be at least ${least}`).max(100, 'must be at most 100')

/**
 * How the gate (and `sieve simulate`) decides, as `--repeats`, `--max-repeats`, `--fail-threshold`,
 * `--warn-threshold`, `--significance`, `--zero-tolerance` and `--graded` give it; values may come
 * as the strings a command line holds. Messages state the rule; the caller names the flag.
 */
export const gatePolicySchema = z
  .object({
    /** Runs per example, or `auto`: raised until the fail threshold is detectable or the budget ends. */
    repeats: z.union([z.literal('auto'), whole(1)], { error: 'must be a whole number from 1 to 100, or auto' }),
    /** With `auto`: the most runs per example. */
    maxRepeats: whole(2).default(20),
    /** A drop (0..1) past which a graded metric fails, when distinguishable from noise. */
    failThreshold: share().default(0.1),
    /** A drop past which a graded metric warns. */
    warnThreshold: share().default(0.05),
    /** One-sided level of the test for a drop. */
    significance: z.coerce.number({ error: 'must be a number' }).gt(0, 'must be above 0').max(0.25, 'must be at most 0.25').default(0.05),
    /** Checks besides the defaults (prohibited_tools) where one failing run fails the gate. */
    zeroTolerance: z.array(z.string().regex(/^[a-z][a-z0-9_]*$/, 'must name a check (snake_case)')).default([]),
    /** Checks or scorecard gates compared statistically instead of allowing no failing run. */
    graded: z.array(z.string().min(1, 'must name a check or gate')).default([]),
  })
  .check((ctx) => {
    const p = ctx.value
    if (p.warnThreshold > p.failThreshold)
      ctx.issues.push({ code: 'custom', path: ['warnThreshold'], message: `must not be above the fail threshold (${p.failThreshold})`, input: p.warnThreshold })
    const both = p.zeroTolerance.filter((n) => p.graded.includes(n))
    if (both.length) ctx.issues.push({ code: 'custom', path: ['graded'], message: `cannot also be --zero-tolerance: ${both.join(', ')}`, input: both })
  })

export type GatePolicy = z.output<typeof gatePolicySchema>
export type GatePolicyInput = z.input<typeof gatePolicySchema>

/** The policy's zero-tolerance checks: the defaults, those added, less those made graded. */
export function zeroToleranceOf(p: Pick<GatePolicy, 'zeroTolerance' | 'graded'>): ZeroTolerance {
  return { checks: [...new Set([...DEFAULT_ZERO_TOLERANCE.checks, ...p.zeroTolerance])], graded: p.graded }
}

/** Where `--repeats auto` starts: enough runs per example to see their spread. */
export const AUTO_START_REPEATS = 3
