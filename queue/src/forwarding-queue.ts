import type { QueueCapabilities, SpanQueue } from '@sieve/core'
import type { ScannedRequest } from '@sieve/otlp'

/**
 * A queue that carries spans as OTLP protobuf (Kafka, record version 2) and states so
 * (`capabilities.forwardsProtobuf`). The receiver hands it a protobuf request scanned, not
 * decoded: the spans travel as the sender's bytes, so building them as objects would be work
 * thrown away. Core's seam cannot name the request's type (it is @sieve/otlp's), hence this one.
 */
export interface ForwardingQueue extends SpanQueue {
  readonly capabilities: QueueCapabilities & { readonly forwardsProtobuf: true }
  publishScanned(request: ScannedRequest): Promise<void>
}

/** The queue as a ForwardingQueue when its capabilities say it forwards protobuf, else undefined. */
export const forwardingOf = (queue: SpanQueue): ForwardingQueue | undefined => (queue.capabilities.forwardsProtobuf ? (queue as ForwardingQueue) : undefined)
