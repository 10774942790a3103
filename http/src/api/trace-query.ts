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
