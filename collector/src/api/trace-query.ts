import { z } from 'zod'

/** Query of `GET /api/traces`: which traces to list. */
export const listTracesQuerySchema = z.strictObject({
  since: z
    .string()
    .transform((raw, ctx) => {
      if (/^\d{1,19}$/.test(raw)) return raw
      const ms = Date.parse(raw)
      if (/^\d{4}-\d{2}-\d{2}/.test(raw) && Number.isFinite(ms)) return (BigInt(ms) * 1_000_000n).toString()
      ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 time (2026-01-31T12:00:00Z) or Unix nanoseconds' })
      return z.NEVER
    })
    .optional(),
  service: z.string().min(1).max(256).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(50),
})

export type ListTracesParams = z.infer<typeof listTracesQuerySchema>

/** Path parameter of `GET /api/traces/:traceId`: 16 bytes of hex, any case. */
export const traceIdSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, 'must be 32 hex characters (16 bytes)')
  .transform((id) => id.toLowerCase())
