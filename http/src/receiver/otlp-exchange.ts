import type { LogFn } from '@sieve/core'
import { encodeStatus, OtlpDecodeError, RPC_CODE, type OtlpFormat } from '@sieve/otlp'
import type { Request, Response } from 'express'
import { requestIdOf } from '../api/request-id.js'
import type { BodyShare } from './admission.js'
import { projectOf } from './authenticate.js'
import { gunzipBody, readBody } from './read-body.js'
import { badRequest, ReceiverError } from './receiver-error.js'
import { isGzip, requireFormat } from './request-format.js'
import { skipUnreadBody } from './skip-unread-body.js'

/*
 * What every OTLP/HTTP signal route does around its own decoding: authenticate, read the body
 * within the limit (as sent and decompressed), and answer in the request's format.
 */

const CONTENT_TYPE: Record<OtlpFormat, string> = { protobuf: 'application/x-protobuf', json: 'application/json' }

export interface OtlpRequest {
  project: string
  format: OtlpFormat
  /** Decompressed; empty for the empty export request. */
  body: Buffer
}

/**
 * The project by API key, the format by Content-Type, and the body; throws ReceiverError (401, 413,
 * 415, 400, and 429 when `share` has no room for the body).
 */
export async function readOtlpRequest(req: Request, apiKeys: ReadonlyMap<string, string>, maxBodyBytes: number, share?: BodyShare): Promise<OtlpRequest> {
  const project = projectOf(req.headers, apiKeys)
  const format = requireFormat(req.headers)
  const gzip = isGzip(req.headers)
  let body = await readBody(req, maxBodyBytes, share?.take)
  if (gzip && body.length > 0) body = await gunzipBody(body, maxBodyBytes)
  return { project, format, body }
}

export function sendOtlp(res: Response, status: number, format: OtlpFormat, body: Buffer): void {
  res.writeHead(status, { 'Content-Type': CONTENT_TYPE[format], 'Content-Length': body.length })
  res.end(body)
}

/**
 * Answers a failed request with a google.rpc.Status in `format` (what is left of its body goes by
 * unread, see skip-unread-body.ts): a ReceiverError as it says, with
 * Retry-After or WWW-Authenticate where it calls for one; a body the decoders refused
 * (OtlpDecodeError) as a 400 naming why; anything else logged in full and answered as a 500
 * `internal error`.
 */
export function sendOtlpFailure(res: Response, err: unknown, format: OtlpFormat, log: LogFn, route: string): void {
  if (res.headersSent || res.destroyed) return
  let failure: ReceiverError
  if (err instanceof ReceiverError) failure = err
  else if (err instanceof OtlpDecodeError) failure = badRequest(err.message)
  else {
    log(`sieve collector: ${route} failed: ${(err as Error)?.stack ?? String(err)}`, { requestId: requestIdOf(res) })
    failure = new ReceiverError(500, RPC_CODE.INTERNAL, 'internal error')
  }
  skipUnreadBody(res.req)
  if (failure.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(failure.retryAfterSeconds))
  if (failure.status === 401) res.setHeader('WWW-Authenticate', 'Bearer')
  sendOtlp(res, failure.status, format, encodeStatus(format, failure.rpcCode, failure.message))
}
