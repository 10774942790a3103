import { createHash, timingSafeEqual } from 'node:crypto'
import type { RequestHandler } from 'express'
import { bearerToken } from '@sieve/http'

export interface MetricsAccessOptions {
  apiKeys: ReadonlyMap<string, string>
  /** `SIEVE_METRICS_TOKEN`: when set, `/metrics` requires `Authorization: Bearer <token>`. */
  token?: string
}

/** 127.0.0.0/8 and ::1, also as IPv4-mapped IPv6 (what a dual-stack socket reports). */
const LOOPBACK_ADDRESS = /^(?:(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1)$/i

export const isLoopbackAddress = (address: string | undefined): boolean => LOOPBACK_ADDRESS.test(address ?? '')

const digest = (text: string): Buffer => createHash('sha256').update(text).digest()

/**
 * Who may read `/metrics`. Its labels name every project and count what each sent, so once API
 * keys separate tenants it is not for any of them: with a token configured, whoever presents it
 * (a Prometheus elsewhere); without one, only clients on this machine. Without API keys Sieve
 * listens on loopback only and `/metrics` stays open. The socket's address decides, never
 * `X-Forwarded-For`: a reverse proxy on this machine makes every client local, so set a token there.
 */
export function metricsAccess(options: MetricsAccessOptions): RequestHandler {
  const expected = options.token === undefined ? undefined : digest(options.token)
  return (req, res, next) => {
    if (expected) {
      const given = bearerToken(req.headers)
      // Digests have one length, so the comparison takes the same time whatever was sent.
      if (given !== undefined && timingSafeEqual(digest(given), expected)) return next()
      res
        .status(401)
        .set('WWW-Authenticate', 'Bearer')
        .json({ error: { code: 'UNAUTHORIZED', message: 'send Authorization: Bearer <SIEVE_METRICS_TOKEN>' } })
      return
    }
    if (options.apiKeys.size === 0 || isLoopbackAddress(req.socket.remoteAddress)) return next()
    res
      .status(403)
      .json({ error: { code: 'FORBIDDEN', message: '/metrics answers clients on this machine only; set SIEVE_METRICS_TOKEN to scrape it from elsewhere' } })
  }
}
