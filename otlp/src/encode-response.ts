/*
 * What the receivers answer, in the format the request came in: an export response on success
 * (with partial_success when items were rejected), a google.rpc.Status on failure.
 */

import { varintBytes } from './varint.js'

export type OtlpFormat = 'protobuf' | 'json'

/** gRPC status codes the OTLP/HTTP spec pairs with HTTP statuses in a google.rpc.Status. */
export const RPC_CODE = {
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  UNAUTHENTICATED: 16,
  UNAVAILABLE: 14,
  INTERNAL: 13,
} as const

/** A message of up to two fields: a varint in field 1 (omitted when 0) and a string in field 2. */
function numberAndText(num: number, text: string): Buffer {
  const textBytes = Buffer.from(text, 'utf8')
  const parts: Buffer[] = []
  if (num !== 0) parts.push(Buffer.of(0x08), varintBytes(num))
  if (textBytes.length > 0) parts.push(Buffer.of(0x12), varintBytes(textBytes.length), textBytes)
  return Buffer.concat(parts)
}

/**
 * An Export{Trace,Logs}ServiceResponse: the two share their wire form (partial_success, field 1,
 * holding the rejected count and error_message); in JSON the count is `rejectedSpans` or
 * `rejectedLogRecords`.
 */
export function encodeExportResponse(format: OtlpFormat, rejected: number, errorMessage: string, items: 'Spans' | 'LogRecords' = 'Spans'): Buffer {
  const partial = rejected > 0 || errorMessage !== ''
  if (format === 'json') {
    return Buffer.from(JSON.stringify(partial ? { partialSuccess: { [`rejected${items}`]: String(rejected), errorMessage } } : {}))
  }
  if (!partial) return Buffer.alloc(0)
  const inner = numberAndText(rejected, errorMessage)
  return Buffer.concat([Buffer.of(0x0a), varintBytes(inner.length), inner])
}

export function encodeStatus(format: OtlpFormat, code: number, message: string): Buffer {
  return format === 'json' ? Buffer.from(JSON.stringify({ code, message })) : numberAndText(code, message)
}
