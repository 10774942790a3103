import { decodeProtobufRequest } from '@sieve/otlp'

/**
 * Copies of an OTLP protobuf request that are new traces to the collector: each trace id's bytes
 * rewritten wherever they stand (every span of the trace, and links to it). A soak sends
 * thousands of requests; making each with the OpenTelemetry SDK would cost the sender, which
 * shares the cores with the collector, more CPU than the collector spends on it, and resending
 * the same ids would only replace rows (ReplacingMergeTree) and re-score the same traces.
 */
export function freshTraceIds(payload: Buffer): (copy: number) => Buffer {
  const ids = new Set(decodeProtobufRequest(payload, 'default').spans.map((s) => s.traceId))
  const places: number[] = []
  for (const id of ids) {
    const bytes = Buffer.from(id, 'hex')
    for (let at = payload.indexOf(bytes); at >= 0; at = payload.indexOf(bytes, at + bytes.length)) places.push(at)
  }
  return (copy) => {
    const out = Buffer.from(payload)
    // The last 4 bytes XOR the copy number: distinct ids stay distinct within a copy, and the
    // random first 12 bytes keep copies apart.
    for (const at of places) out.writeUInt32BE((out.readUInt32BE(at + 12) ^ copy) >>> 0, at + 12)
    return out
  }
}
