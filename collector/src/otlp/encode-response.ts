/*
 * What the receiver answers, in the format the request came in: an ExportTraceServiceResponse on
 * success (with partial_success when spans were rejected), a google.rpc.Status on failure.
 */

export type OtlpFormat = 'protobuf' | 'json'

/** gRPC status codes the OTLP/HTTP spec pairs with HTTP statuses in a google.rpc.Status. */
export const RPC_CODE = {
  INVALID_ARGUMENT: 3,
  RESOURCE_EXHAUSTED: 8,
  UNAUTHENTICATED: 16,
  UNAVAILABLE: 14,
  INTERNAL: 13,
} as const

function varint(value: number): number[] {
  const bytes: number[] = []
  while (value > 0x7f) {
    bytes.push((value % 0x80) | 0x80)
    value = Math.floor(value / 0x80)
  }
  bytes.push(value)
  return bytes
}

/** A message of up to two fields: a varint in field 1 (omitted when 0) and a string in field 2. */
function numberAndText(num: number, text: string): Buffer {
  const textBytes = Buffer.from(text, 'utf8')
  const parts: number[] = []
  if (num !== 0) parts.push(0x08, ...varint(num))
  if (textBytes.length > 0) parts.push(0x12, ...varint(textBytes.length))
  return Buffer.concat([Buffer.from(parts), textBytes])
}

export function encodeExportResponse(format: OtlpFormat, rejectedSpans: number, errorMessage: string): Buffer {
  const partial = rejectedSpans > 0 || errorMessage !== ''
  if (format === 'json') {
    return Buffer.from(JSON.stringify(partial ? { partialSuccess: { rejectedSpans: String(rejectedSpans), errorMessage } } : {}))
  }
  if (!partial) return Buffer.alloc(0)
  const inner = numberAndText(rejectedSpans, errorMessage)
  return Buffer.concat([Buffer.from([0x0a, ...varint(inner.length)]), inner])
}

export function encodeStatus(format: OtlpFormat, code: number, message: string): Buffer {
  return format === 'json' ? Buffer.from(JSON.stringify({ code, message })) : numberAndText(code, message)
}
