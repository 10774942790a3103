import { SPAN_KINDS, STATUS_CODES } from '@sieve/core'
import { z } from 'zod'

/*
 * OTLP/JSON (the protobuf JSON mapping with the OTLP exceptions: ids as hex, enums as numbers
 * or names, lowerCamelCase field names). 64-bit integers may be numbers or strings; by the time
 * this schema sees them, integers too large for a double have been turned into strings (see
 * `parseExactJson`). Unknown fields are ignored, as the spec requires.
 */

/**
 * A 64-bit integer: a number (an integer; past 2^53 they arrive as strings, see parseExactJson) or
 * a decimal string within [min, max]. Up to 18 digits always fit 64 bits, so only longer strings
 * are compared, and only once they are known to be digits (BigInt throws on anything else).
 */
function integer64(min: bigint, max: bigint, what: string) {
  const message = `expected ${what}`
  const digits = min < 0n ? /^-?\d+$/ : /^\d+$/
  const within = (v: string | number): boolean => {
    if (typeof v === 'number') return Number.isInteger(v) && (min < 0n || v >= 0)
    if (!digits.test(v)) return false
    return v.replace(/^-/, '').length <= 18 || (BigInt(v) >= min && BigInt(v) <= max)
  }
  return z.union([z.string(), z.number()], { error: message }).refine(within, message)
}

const uint64 = integer64(0n, 2n ** 64n - 1n, 'an unsigned 64-bit integer')
/** fixed32 and uint32 fields (flags, dropped counts): larger values would be wrapped by a UInt32 column. */
const uint32 = z.number().int().min(0).max(0xffffffff)
const int64 = integer64(-(2n ** 63n), 2n ** 63n - 1n, 'a signed 64-bit integer')
// A whole double past 2^53 (1e16 written out) reaches the schema as digits in a string, like a long int.
const double = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+$/)
    .transform(Number),
  z.enum(['NaN', 'Infinity', '-Infinity']),
])

/**
 * AnyValue one level deep: the items of arrays and key-value lists are checked by the decoder
 * with these same schemas as it descends. A recursive zod schema would pay for cycle detection
 * on every attribute of every span.
 */
export const anyValueSchema = z.object({
  stringValue: z.string().optional(),
  boolValue: z.boolean().optional(),
  intValue: int64.optional(),
  doubleValue: double.optional(),
  arrayValue: z.object({ values: z.array(z.unknown()).optional() }).optional(),
  kvlistValue: z.object({ values: z.array(z.unknown()).optional() }).optional(),
  bytesValue: z.string().optional(),
})

export const keyValueSchema = z.object({ key: z.string(), value: anyValueSchema.optional() })

const attributes = z.array(keyValueSchema).optional()

const enumValue = <const T extends readonly string[]>(names: T, prefix: string) =>
  z.union([z.number().int(), z.enum(names.map((n) => `${prefix}${n}`) as [string, ...string[]])]).optional()

export const spanSchema = z.object({
  traceId: z.string().optional(),
  spanId: z.string().optional(),
  traceState: z.string().optional(),
  parentSpanId: z.string().optional(),
  flags: uint32.optional(),
  name: z.string().optional(),
  kind: enumValue(SPAN_KINDS, 'SPAN_KIND_'),
  startTimeUnixNano: uint64.optional(),
  endTimeUnixNano: uint64.optional(),
  attributes,
  droppedAttributesCount: uint32.optional(),
  events: z
    .array(
      z.object({
        timeUnixNano: uint64.optional(),
        name: z.string().optional(),
        attributes,
        droppedAttributesCount: uint32.optional(),
      }),
    )
    .optional(),
  droppedEventsCount: uint32.optional(),
  links: z
    .array(
      z.object({
        traceId: z.string().optional(),
        spanId: z.string().optional(),
        traceState: z.string().optional(),
        attributes,
        droppedAttributesCount: uint32.optional(),
        flags: uint32.optional(),
      }),
    )
    .optional(),
  droppedLinksCount: uint32.optional(),
  status: z.object({ message: z.string().optional(), code: enumValue(STATUS_CODES, 'STATUS_CODE_') }).optional(),
})

/** The request down to the spans, which are checked one by one so a bad span does not sink the rest. */
export const exportRequestSchema = z.object({
  resourceSpans: z
    .array(
      z.object({
        resource: z.object({ attributes, droppedAttributesCount: uint32.optional() }).optional(),
        scopeSpans: z
          .array(
            z.object({
              scope: z
                .object({
                  name: z.string().optional(),
                  version: z.string().optional(),
                  attributes,
                  droppedAttributesCount: uint32.optional(),
                })
                .optional(),
              spans: z.array(z.unknown()).optional(),
              schemaUrl: z.string().optional(),
            }),
          )
          .optional(),
        schemaUrl: z.string().optional(),
      }),
    )
    .optional(),
})

/** A LogRecord, down to the fields `decode-logs.ts` reads (a GenAI event of a span). */
export const logRecordSchema = z.object({
  timeUnixNano: uint64.optional(),
  observedTimeUnixNano: uint64.optional(),
  eventName: z.string().optional(),
  traceId: z.string().optional(),
  spanId: z.string().optional(),
  body: anyValueSchema.optional(),
  attributes,
  droppedAttributesCount: uint32.optional(),
})

/** The logs request down to the records, which are checked one by one as spans are. */
export const logsRequestSchema = z.object({
  resourceLogs: z.array(z.object({ scopeLogs: z.array(z.object({ logRecords: z.array(z.unknown()).optional() })).optional() })).optional(),
})

export type AnyValueJson = z.infer<typeof anyValueSchema>
export type KeyValueJson = z.infer<typeof keyValueSchema>
export type SpanJson = z.infer<typeof spanSchema>
