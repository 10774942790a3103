import { queryCount, queryTime } from '@sieve/http'
import { traceIdSchema } from '@sieve/protocol'
import { z } from 'zod'

/**
 * Query parameters of the dashboard API, one zod schema each; handlers receive the parsed values.
 * Times are ISO 8601 or Unix milliseconds; intervals are the bucket sizes the 5-minute rollup serves.
 */

export const INTERVALS = { '5m': 300, '15m': 900, '1h': 3600, '6h': 21600, '1d': 86400, '7d': 604800 } as const
export type Interval = keyof typeof INTERVALS

/** Longest range one request may cover, and most buckets one series may have. */
export const MAX_RANGE_DAYS = 93
export const MAX_BUCKETS = 2000
const DAY_MS = 86_400_000

/** ISO 8601 or Unix milliseconds, 1970 to 2100 (the read API's rule, collector's query-params.ts). */
const msTime = queryTime('ms')
const instant = msTime.transform((nanos) => new Date(Number(nanos / 1_000_000n)))

/**
 * `from` or `to` as sent, which resolveRange reads as an instant once both are known: here only
 * what any time takes, so the API document shows it.
 */
const rangeBound = z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe(msTime.description!).optional()

export const DIMENSIONS = ['agent_version', 'prompt_version', 'model', 'service'] as const
export type Dimension = (typeof DIMENSIONS)[number]

/** The `environment` value that selects every environment, simulations included. */
export const ALL_ENVIRONMENTS = '*'

/**
 * Narrow any query to one service, version, model or environment (deployment.environment.name).
 * Without `environment`, every environment but simulations; `*`, every one.
 */
const filters = {
  service: z.string().min(1).max(200).optional(),
  agent_version: z.string().min(1).max(200).optional(),
  prompt_version: z.string().min(1).max(200).optional(),
  model: z.string().min(1).max(200).optional(),
  environment: z.string().min(1).max(200).optional().describe("deployment.environment.name; '*': every environment; left out: every one but 'simulation'"),
}
export type Filters = { service?: string; agent_version?: string; prompt_version?: string; model?: string; environment?: string }

type Ctx = z.RefinementCtx

/** Resolves from/to (default: the last `defaultDays` days) and refuses a range too large to serve. */
function resolveRange(q: { from?: string; to?: string }, ctx: Ctx, defaultDays = 1): { from: Date; to: Date } | undefined {
  const parsed = z.object({ from: instant.optional(), to: instant.optional() }).safeParse(q)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message })
    return undefined
  }
  const end = parsed.data.to ?? new Date()
  const start = parsed.data.from ?? new Date(end.getTime() - defaultDays * DAY_MS)
  if (start >= end) {
    ctx.addIssue({ code: 'custom', path: ['from'], message: 'from must be earlier than to' })
    return undefined
  }
  const days = (end.getTime() - start.getTime()) / DAY_MS
  if (days > MAX_RANGE_DAYS) {
    ctx.addIssue({
      code: 'custom',
      path: ['from'],
      message: `the range covers ${Math.ceil(days)} days; at most ${MAX_RANGE_DAYS} days per request, narrow from/to`,
    })
    return undefined
  }
  return { from: start, to: end }
}

/** Picks the smallest interval that keeps a series under ~300 points when none is asked for. */
export function autoInterval(from: Date, to: Date): Interval {
  const seconds = (to.getTime() - from.getTime()) / 1000
  return (Object.keys(INTERVALS) as Interval[]).find((i) => seconds / INTERVALS[i] <= 300) ?? '7d'
}

export const qualityQuery = z
  .object({
    from: rangeBound,
    to: rangeBound,
    interval: z.enum(Object.keys(INTERVALS) as [Interval, ...Interval[]]).optional(),
    // check_version: one line per version of a check, as counted (a re-scored trace under its newest version).
    groupBy: z.enum(['check', 'check_version', ...DIMENSIONS]).default('check'),
    kind: z.enum(['deterministic', 'judge', 'scorecard']).optional(),
    check: z.string().min(1).max(200).optional(),
    ...filters,
  })
  .strict()
  .transform((q, ctx) => {
    const r = resolveRange(q, ctx)
    if (!r) return z.NEVER
    const interval = q.interval ?? autoInterval(r.from, r.to)
    const buckets = (r.to.getTime() - r.from.getTime()) / 1000 / INTERVALS[interval]
    if (buckets > MAX_BUCKETS) {
      ctx.addIssue({
        code: 'custom',
        path: ['interval'],
        message: `${interval} buckets over this range make ${Math.ceil(buckets)} points; at most ${MAX_BUCKETS}, choose a larger interval`,
      })
      return z.NEVER
    }
    return { ...q, ...r, interval }
  })
export type QualityQuery = z.output<typeof qualityQuery>

export const worstQuery = z
  .object({
    from: rangeBound,
    to: rangeBound,
    sort: z.enum(['checks', 'judge']).default('checks'),
    check: z.string().min(1).max(200).optional(),
    limit: queryCount(1, 200).default(50),
    ...filters,
  })
  .strict()
  .transform((q, ctx) => {
    const r = resolveRange(q, ctx)
    if (!r) return z.NEVER
    return { ...q, ...r }
  })
export type WorstQuery = z.output<typeof worstQuery>

export const scorecardQuery = z
  .object({ from: rangeBound, to: rangeBound, ...filters })
  .strict()
  .transform((q, ctx) => {
    const r = resolveRange(q, ctx)
    if (!r) return z.NEVER
    return { ...q, ...r }
  })
export type ScorecardQuery = z.output<typeof scorecardQuery>

export const compareQuery = z
  .object({
    a: z.string().min(1).max(200),
    b: z.string().min(1).max(200),
    by: z.enum(DIMENSIONS).default('agent_version'),
    from: rangeBound,
    to: rangeBound,
    service: filters.service,
    environment: filters.environment,
  })
  .strict()
  .transform((q, ctx) => {
    // A comparison looks further back than a chart by default: versions live for weeks.
    const r = resolveRange(q, ctx, 30)
    if (!r) return z.NEVER
    return { ...q, ...r }
  })
export type CompareQuery = z.output<typeof compareQuery>

/**
 * A session id as senders write `gen_ai.conversation.id` / `session.id`: any text, compared exactly
 * (never trimmed or case-folded), within the length a path can carry.
 */
export const sessionIdParam = z
  .string()
  .min(1, 'a session id is not empty')
  .max(512, 'a session id is at most 512 characters')
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'a session id holds no control characters')

export const exportBody = z.object({ traceIds: z.array(traceIdSchema).min(1).max(1000), note: z.string().max(2000).optional() }).strict()
export type ExportBody = z.output<typeof exportBody>
