import type { PipelineMetrics } from '@sieve/metrics'

/**
 * Admission of OTLP requests under load: what is shed before any work (the body's bytes past
 * SIEVE_MAX_BYTES_IN_FLIGHT). Decodes take core's turns (`nextTurn`), so that bodies ending together
 * are not all decoded in one stretch of the main thread.
 */

/** A request's share of the bytes in flight: taken as its body is admitted, given back once. */
export interface BodyShare {
  /** Takes room for `bytes` more; false when they do not fit. */
  take(bytes: number): boolean
  /** Gives back all it took (idempotent): its spans are in the queue, or it was answered. */
  release(): void
}

/**
 * The bytes of request bodies admitted and not yet handed to the queue, as sent: bodies being read,
 * inflated and decoded. One body alone always fits (the body limit bounds it), so a bound below
 * SIEVE_MAX_BODY_BYTES only serializes the largest requests.
 */
export class BytesInFlight {
  private held = 0
  /** `metrics`, when given, counts each body refused for want of room. */
  constructor(
    readonly max: number,
    private readonly metrics?: Pick<PipelineMetrics, 'requestsShed'>,
  ) {}

  get bytes(): number {
    return this.held
  }

  share(): BodyShare {
    let own = 0
    return {
      take: (bytes) => {
        if (this.held - own > 0 && this.held + bytes > this.max) {
          this.metrics?.requestsShed.inc({ reason: 'bytes_in_flight' })
          return false
        }
        this.held += bytes
        own += bytes
        return true
      },
      release: () => {
        this.held -= own
        own = 0
      },
    }
  }
}
