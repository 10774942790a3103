import type { GatePolicyInput } from '@sieve/replay'
import { UsageError, type OptionValues, type StringOption } from './command.js'

/**
 * The options `sieve eval` and `sieve simulate` share for deciding pass, warn or fail: the repeats
 * (a number or auto), the thresholds, the test's level, zero-tolerance and graded checks. Defined
 * here once; checked by @sieve/replay's gatePolicySchema (zod), its problems given back as flags.
 */
export function gateOptions(defaultRepeats: string, unit: string): Record<string, StringOption> {
  return {
    repeats: {
      type: 'string',
      value: 'n|auto',
      default: defaultRepeats,
      description: `runs per ${unit}, 1 to 100; auto: from 3, raised until a drop of --fail-threshold is detectable on every graded metric (80% power), within --max-repeats and --max-cost`,
    },
    'max-repeats': { type: 'string', value: 'n', defaultText: '20', description: `with --repeats auto: the most runs per ${unit}` },
    'fail-threshold': {
      type: 'string',
      value: '0..1',
      defaultText: '0.1',
      description:
        "a graded metric (pass rate, a check's pass rate, the scorecard, a judge score) fails on a drop past this from the baseline, when distinguishable from noise",
    },
    'warn-threshold': {
      type: 'string',
      value: '0..1',
      defaultText: '0.05',
      description: 'a drop past this warns (saying how many repeats would settle it when it is not yet distinguishable)',
    },
    significance: { type: 'string', value: 'level', defaultText: '0.05', description: 'one-sided level at which a drop is distinguishable from noise' },
    'zero-tolerance': {
      type: 'string',
      value: 'check',
      multiple: true,
      description: "a check where one failing run fails, whatever the baseline (besides prohibited_tools and the scorecard's gates)",
    },
    graded: {
      type: 'string',
      value: 'check|gate',
      multiple: true,
      description: 'compare this check or scorecard gate statistically instead of allowing no failing run',
    },
  }
}

const FLAGS: Record<keyof GatePolicyInput, string> = {
  repeats: 'repeats',
  maxRepeats: 'max-repeats',
  failThreshold: 'fail-threshold',
  warnThreshold: 'warn-threshold',
  significance: 'significance',
  zeroTolerance: 'zero-tolerance',
  graded: 'graded',
}

const list = (raw: unknown): string[] | undefined => (raw === undefined ? undefined : (Array.isArray(raw) ? raw : [raw]).map(String))

/** The gate's policy from the command line; a value the schema refuses is a usage error naming the flag, the rule and the value. */
export async function gatePolicyOption(values: OptionValues): Promise<Omit<GatePolicyInput, 'repeats'> & { repeats: number | 'auto' }> {
  const { gatePolicySchema } = await import('@sieve/replay')
  const raw: Record<string, unknown> = {}
  for (const [key, flag] of Object.entries(FLAGS)) {
    const value = key === 'zeroTolerance' || key === 'graded' ? list(values[flag]) : values[flag]
    if (value !== undefined) raw[key] = value
  }
  const parsed = gatePolicySchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const key = String(issue.path[0]) as keyof GatePolicyInput
    throw new UsageError(`--${FLAGS[key]} ${issue.message} (got '${String(values[FLAGS[key]])}')`)
  }
  if (parsed.data.repeats !== 'auto' && values['max-repeats'] !== undefined) throw new UsageError('--max-repeats goes with --repeats auto')
  return parsed.data
}
