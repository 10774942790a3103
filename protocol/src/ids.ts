import { z } from 'zod'

/** An id of `bytes` bytes as OTLP/JSON, W3C `traceparent` and the APIs write it: hex in any case, kept lower-case. */
function hexId(bytes: number) {
  return z
    .string()
    .regex(new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`), `must be ${bytes * 2} hex digits (${bytes} bytes)`)
    .transform((id) => id.toLowerCase())
}

/** A trace id in a request (path, query, body): 16 bytes of hex. */
export const traceIdSchema = hexId(16)
/** A span id in a request: 8 bytes of hex. */
export const spanIdSchema = hexId(8)
