import { insertSpanLogEvents, type LogFn, type Storage } from '@sieve/core'
import { countedInsert, type PipelineMetrics } from '@sieve/metrics'
import { decodeLogsRequest, DecodedLogs, encodeExportResponse, RPC_CODE, type OtlpFormat } from '@sieve/otlp'
import { Router, type Request, type Response } from 'express'
import { requestIdOf } from '../api/request-id.js'
import { readOtlpRequest, sendOtlp, sendOtlpFailure } from './otlp-exchange.js'
import { BytesInFlight } from './admission.js'
import { ReceiverError } from './receiver-error.js'
import { formatOf } from './request-format.js'

export interface LogsRouterOptions {
  storage: Storage
  apiKeys: ReadonlyMap<string, string>
  maxBodyBytes: number
  metrics: PipelineMetrics
  log: LogFn
  /** The bound the trace receiver's bodies count against, so that log bodies cannot get around it. */
  bytesInFlight?: BytesInFlight
}

/** Seconds a sender should wait before retrying when storage refused the events. */
const RETRY_AFTER = 5

/**
 * `POST /v1/logs` for the log records Sieve keeps: GenAI events of traced calls, which some
 * instrumentations emit through the Logs API instead of on the span (OpenTelemetry's own, on their
 * event settings). They are stored beside the spans (`span_log_events`) and read back as events of
 * the span each names. Any other record is rejected and counted in partial_success, also when no
 * record is kept: an app's own logs are not malformed (SDKs such as the Java agent export them to
 * the same endpoint by default), so they get OTLP's partial success, which nobody retries, rather
 * than an error status per batch. Only a body that is not a logs export request is a 400. Written
 * to storage before the 200, like feedback: they carry no work for the pipeline, only content its
 * readers join to the span.
 */
export function createLogsRouter(options: LogsRouterOptions): Router {
  const { storage, apiKeys, maxBodyBytes, metrics, log } = options
  const router = Router()
  const inFlight = options.bytesInFlight ?? new BytesInFlight(Infinity)
  router.post('/v1/logs', async (req: Request, res: Response) => {
    const replyFormat: OtlpFormat = formatOf(req.headers) ?? 'json'
    const share = inFlight.share()
    try {
      const { project, format, body } = await readOtlpRequest(req, apiKeys, maxBodyBytes, share)
      const decoded = body.length === 0 ? new DecodedLogs() : decodeLogsRequest(format, body)
      if (decoded.events.length === 0 && decoded.rejected === 0) {
        sendOtlp(res, 200, format, encodeExportResponse(format, 0, 'empty request: no log records received', 'LogRecords'))
        return
      }
      if (decoded.rejected > 0) metrics.logRecords.inc({ project, outcome: 'rejected' }, decoded.rejected)
      if (decoded.events.length > 0) await store(project, decoded.events, res)
      sendOtlp(res, 200, format, encodeExportResponse(format, decoded.rejected, decoded.errorMessage, 'LogRecords'))
    } catch (err) {
      sendOtlpFailure(res, err, replyFormat, log, '/v1/logs')
    } finally {
      share.release()
    }
  })

  const store = async (project: string, events: DecodedLogs['events'], res: Response): Promise<void> => {
    try {
      await countedInsert(metrics, 'span_log_events', events.length, () => insertSpanLogEvents(storage, project, events))
      metrics.logRecords.inc({ project, outcome: 'kept' }, events.length)
    } catch (err) {
      // Its text may quote rows: the log gets it, the sender the problem.
      log(`sieve collector: storing GenAI log events of project ${project} failed: ${(err as Error)?.stack ?? String(err)}`, {
        requestId: requestIdOf(res),
        project,
      })
      throw new ReceiverError(503, RPC_CODE.UNAVAILABLE, 'storage is unavailable: the events were not stored; retry later', RETRY_AFTER)
    }
  }
  return router
}
