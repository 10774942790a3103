import type { IncomingHttpHeaders } from 'node:http'
import type { OtlpFormat } from '@sieve/otlp'
import { unsupported } from './receiver-error.js'

const FORMATS: Record<string, OtlpFormat> = {
  'application/x-protobuf': 'protobuf',
  'application/protobuf': 'protobuf',
  'application/json': 'json',
}

/** The OTLP encoding a Content-Type names (parameters such as charset ignored), if any. */
export function formatOf(headers: IncomingHttpHeaders): OtlpFormat | undefined {
  const type = headers['content-type']?.split(';')[0]?.trim().toLowerCase()
  return type === undefined ? undefined : FORMATS[type]
}

export function requireFormat(headers: IncomingHttpHeaders): OtlpFormat {
  const format = formatOf(headers)
  if (format === undefined) {
    throw unsupported(`Content-Type '${headers['content-type'] ?? ''}' is not supported: send application/x-protobuf or application/json`)
  }
  return format
}

/** Whether the body is gzip-compressed; throws for encodings the receiver does not speak. */
export function isGzip(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding']?.trim().toLowerCase() ?? 'identity'
  if (encoding === 'gzip') return true
  if (encoding === 'identity' || encoding === '') return false
  throw unsupported(`Content-Encoding '${encoding}' is not supported: send gzip or identity`)
}
