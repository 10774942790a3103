import { z } from 'zod'
import { LATEST_NANOS } from '@sieve/otlp'

const LATEST = BigInt(LATEST_NANOS)
const UNIT_NANOS = { ms: 1_000_000n, ns: 1n } as const
const UNIT_NAMES = { ms: 'Unix milliseconds', ns: 'Unix nanoseconds' } as const

/**
 * A time in a query string, ISO 8601 (a date first: `Date.parse` alone takes "-5" or "foo 12"
 * for dates) or a Unix timestamp in `unit`, as Unix nanoseconds. Only times from the epoch up to
 * the last one a span may hold (2100, span-checks.ts) pass: every bound then fits the Int64 and
 * DateTime64 parameters it is bound to, where a larger one failed the query.
 */
export function queryTime(unit: keyof typeof UNIT_NANOS) {
  return z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(64, 'must be at most 64 characters')
    .transform((raw, ctx) => {
      const ms = /^\d{4}-\d{2}-\d{2}/.test(raw) ? Date.parse(raw) : NaN
      const nanos = /^\d+$/.test(raw) ? BigInt(raw) * UNIT_NANOS[unit] : Number.isFinite(ms) ? BigInt(ms) * 1_000_000n : undefined
      if (nanos === undefined) {
        ctx.addIssue({ code: 'custom', message: `'${raw}' is not a time; use ISO 8601 (2026-11-29T12:00:00Z) or ${UNIT_NAMES[unit]}` })
        return z.NEVER
      }
      if (nanos < 0n || nanos > LATEST) {
        ctx.addIssue({ code: 'custom', message: `'${raw}' is out of range; times lie between 1970-01-01T00:00:00Z and 2100-01-01T00:00:00Z` })
        return z.NEVER
      }
      return nanos
    })
    .describe(`ISO 8601 (a date first) or ${UNIT_NAMES[unit]}, 1970 to 2100`)
}

/**
 * A count in a query string (`limit`): decimal digits only, within [min, max]. `z.coerce` took
 * `0x10`, `1e2` and ` 5` for numbers. A caller in code (the query functions' own users) may give
 * the number itself. Documented as an integer within [min, max].
 */
export function queryCount(min: number, max: number) {
  return (
    z
      .union([
        z
          .string()
          .regex(/^\d{1,9}$/, 'must be a whole number')
          .transform(Number),
        z.number().int('must be a whole number'),
      ])
      .pipe(z.number().min(min).max(max))
      // What the API document shows (the dashboard's openapi.ts): a query string carries it as text.
      .meta({ type: 'integer', minimum: min, maximum: max })
  )
}
