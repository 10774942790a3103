import { nextTurn, type LogFn, type PublishOutcome, type Span, type SpanQueue } from '@sieve/core'
import type { PipelineMetrics } from '@sieve/metrics'
import { Router, type Request, type Response } from 'express'
import { z } from 'zod'
import { decodeJsonRequest, RequestAccount, decodeProtobufRequest, scanProtobufRequest, encodeExportResponse, RPC_CODE, type OtlpFormat } from '@sieve/otlp'
import { forwardingOf, type ForwardingQueue } from '@sieve/queue'
import { requestIdOf } from '../api/request-id.js'
import { readOtlpRequest, sendOtlp, sendOtlpFailure } from './otlp-exchange.js'
import { BytesInFlight } from './admission.js'
import { ReceiverError, badRequest, shed } from './receiver-error.js'
import { formatOf } from './request-format.js'

export const otlpRouterOptionsSchema = z.object({
  queue: z.custom<SpanQueue>(
    (q) => typeof (q as SpanQueue | null)?.publish === 'function' && typeof (q as SpanQueue).capabilities === 'object',
    'queue must be a SpanQueue',
  ),
  /** API key → project id; empty: no auth, everything goes to project `default`. */
  apiKeys: z.custom<ReadonlyMap<string, string>>((m) => m instanceof Map, 'apiKeys must be a Map of key to project'),
  /** Limit on the body, both as sent and once decompressed. */
  maxBodyBytes: z.number().int().positive(),
  metrics: z.custom<PipelineMetrics>((m) => typeof (m as PipelineMetrics | null)?.registry === 'object', 'metrics must come from createPipelineMetrics()'),
  /**
   * Bytes of request bodies read or decoded at once, as sent (SIEVE_MAX_BYTES_IN_FLIGHT), shared
   * with `/v1/logs`; a request past it is answered 429 before its body is kept. Unset: no bound but
   * the body limit.
   */
  bytesInFlight: z.instanceof(BytesInFlight).optional(),
  /** Where errors no sender may see go in full (default: stderr). */
  log: z.custom<LogFn>((f) => typeof f === 'function', 'log must be a function').optional(),
})

export type OtlpRouterOptions = z.infer<typeof otlpRouterOptionsSchema>

/** Seconds a sender should wait before retrying when the queue fails for a reason it did not name. */
const DEFAULT_RETRY_AFTER = 5

/**
 * `POST /v1/traces` per the OTLP/HTTP spec: protobuf or JSON, optionally gzip, authenticated by
 * API key. A 200 goes out only once the queue has taken the spans; invalid spans are rejected
 * one by one (reported in partial_success) while the valid ones in the same request are kept,
 * and so are spans storage refused and the queue kept as dead letters. Error bodies name the
 * problem in the receiver's or the queue's own words: an error from storage may quote stored
 * rows, of any project, so it only goes to the log.
 */
export function createOtlpRouter(options: OtlpRouterOptions): Router {
  const { queue, apiKeys, maxBodyBytes, metrics } = otlpRouterOptionsSchema.parse(options)
  const log: LogFn = options.log ?? ((message) => console.error(message))
  const router = Router()
  const inFlight = options.bytesInFlight ?? new BytesInFlight(Infinity)
  const forwarding = forwardingOf(queue)

  router.post('/v1/traces', async (req: Request, res: Response) => {
    const stopTimer = metrics.requestDuration.startTimer()
    res.on('finish', () => stopTimer({ status: String(res.statusCode) }))
    // Errors are answered in the request's format when it names one, else in JSON.
    const replyFormat: OtlpFormat = formatOf(req.headers) ?? 'json'
    const share = inFlight.share()
    try {
      // Shed before any work: a queue that would refuse the spans, or make the sender wait past its
      // patience, refuses the request before its body is read (the rest is discarded as it comes).
      // The bodies being read and decoded will queue too, and so will this one.
      const asking = Number(req.headers['content-length']) || 0
      const saturated = queue.saturated({ bytes: inFlight.bytes + asking, asking })
      if (saturated) {
        metrics.requestsShed.inc({ reason: saturated.reason })
        throw shed(`queue is ${saturated.reason === 'queue_full' ? 'full' : 'behind'}: ${saturated.message}`)
      }
      const { project, format, body } = await readOtlpRequest(req, apiKeys, maxBodyBytes, share)
      await nextTurn()
      // A zero-length body is the empty export request in protobuf; JSON senders get the same.
      const { account, kept, publish, spanAt } = body.length === 0 ? NO_SPANS : readSpans(format, body, project, queue, forwarding)
      if (kept === 0 && account.rejected === 0) {
        sendOtlp(res, 200, format, encodeExportResponse(format, 0, 'empty request: no spans received'))
        return
      }
      metrics.spansReceived.inc({ project }, kept + account.rejected)
      if (account.rejected > 0) metrics.spansRejected.inc({ project, reason: 'invalid' }, account.rejected)
      // Nothing to keep: a failed request (the sender must not retry it), not a partial success.
      if (kept === 0) throw badRequest(account.errorMessage)

      let outcome: PublishOutcome | void
      try {
        const published = publish()
        // The spans are in the queue now (its bound counts them); the body's bytes are garbage.
        share.release()
        outcome = await published
      } catch (err) {
        throw queueError(err, project, kept, metrics, (message) => log(message, { requestId: requestIdOf(res), project }))
      }
      // Kept aside as dead letters, durably: rejected, and the sender must not send them again.
      const quarantined = outcome?.quarantined ?? []
      for (const { index, reason } of quarantined) account.reject(spanAt(index), reason)
      if (quarantined.length > 0) metrics.spansRejected.inc({ project, reason: 'quarantined' }, quarantined.length)
      metrics.spansAccepted.inc({ project }, kept - quarantined.length)
      sendOtlp(res, 200, format, encodeExportResponse(format, account.rejected, account.errorMessage))
    } catch (err) {
      sendOtlpFailure(res, err, replyFormat, log, '/v1/traces')
    } finally {
      share.release()
    }
  })
  return router
}

/** A request's spans, read as far as the queue needs them, and how to hand them over. */
interface ReadSpans {
  account: RequestAccount
  kept: number
  publish(): Promise<PublishOutcome | void>
  /** Names the kept span at `index` (as published) for a rejection: its own ids. */
  spanAt(index: number): string
}

const NO_SPANS: ReadSpans = { account: new RequestAccount(), kept: 0, publish: () => Promise.resolve(), spanAt: (i) => `span ${i}` }

const nameOf = (span: Span | undefined, index: number): string => (span ? `span ${span.spanId} of trace ${span.traceId}` : `span ${index}`)

/** Throws OtlpDecodeError for a body that is not an export request (answered 400 by sendOtlpFailure). */
function readSpans(format: OtlpFormat, body: Buffer, project: string, queue: SpanQueue, forwarding: ForwardingQueue | undefined): ReadSpans {
  if (format === 'protobuf' && forwarding) {
    const scanned = scanProtobufRequest(body, project)
    return { account: scanned, kept: scanned.traceIds.length, publish: () => forwarding.publishScanned(scanned), spanAt: (i) => `span ${i}` }
  }
  const decoded = format === 'protobuf' ? decodeProtobufRequest(body, project) : decodeJsonRequest(body, project)
  return {
    account: decoded,
    kept: decoded.spans.length,
    publish: () => queue.publish(decoded.spans, body.length),
    spanAt: (i) => nameOf(decoded.spans[i], i),
  }
}

/**
 * Backpressure as the OTLP spec wants it: 429/503 with Retry-After, which senders retry. The
 * queue's own errors (QueueFullError, QueueUnavailableError) say what happened in words written
 * for senders; anything else is logged and answered without its text.
 */
function queueError(err: unknown, project: string, spans: number, metrics: PipelineMetrics, log: LogFn): ReceiverError {
  const { code, message, retryAfterSeconds } = err as { code?: string; message?: string; retryAfterSeconds?: number }
  const retryAfter = retryAfterSeconds ?? DEFAULT_RETRY_AFTER
  if (code === 'QUEUE_FULL') {
    metrics.spansRejected.inc({ project, reason: 'queue_full' }, spans)
    return new ReceiverError(429, RPC_CODE.RESOURCE_EXHAUSTED, `queue is full: ${message}`, retryAfter)
  }
  metrics.spansRejected.inc({ project, reason: 'queue_unavailable' }, spans)
  if (code === 'QUEUE_UNAVAILABLE') return new ReceiverError(503, RPC_CODE.UNAVAILABLE, `queue is unavailable: ${message}`, retryAfter)
  log(`sieve collector: publishing spans of project ${project} failed: ${(err as Error)?.stack ?? String(err)}`)
  return new ReceiverError(503, RPC_CODE.UNAVAILABLE, 'queue is unavailable: it failed to take the spans; retry later', retryAfter)
}
