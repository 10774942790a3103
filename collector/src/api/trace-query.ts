import { z } from 'zod'
import { queryCount, queryTime } from './query-params.js'

/** Query of `GET /api/traces`: which traces to list. */
export const listTracesQuerySchema = z.strictObject({
  since: queryTime('ns')
    .transform((nanos) => nanos.toString())
    .optional(),
  service: z.string().min(1).max(256).optional(),
  limit: queryCount(1, 1000).default(50),
})

export type ListTracesParams = z.infer<typeof listTracesQuerySchema>

/** Path parameter of `GET /api/traces/:traceId`: 16 bytes of hex, any case. */
export const traceIdSchema = z
  .string()
  .regex(/^[0-9a-fA-F]{32}$/, 'must be 32 hex characters (16 bytes)')
  .transform((id) => id.toLowerCase())
