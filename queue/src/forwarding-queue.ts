import type { SpanQueue } from '@sieve/core'
import type { ScannedRequest } from '@sieve/otlp'

/**
 * A queue that carries spans as OTLP protobuf (Kafka, record version 2). The receiver hands it a
 * protobuf request scanned, not decoded: the spans travel as the sender's bytes, so building
 * them as objects would be work thrown away.
 */
export interface ForwardingQueue extends SpanQueue {
  publishScanned(request: ScannedRequest): Promise<void>
}

export const forwardsProtobuf = (queue: SpanQueue): queue is ForwardingQueue => typeof (queue as Partial<ForwardingQueue>).publishScanned === 'function'
