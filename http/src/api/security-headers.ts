import type { RequestHandler } from 'express'

/**
 * The policy of a response that loads nothing (the JSON of the APIs, a redirect): a browser led to
 * one renders no script or style from it, and no page may frame it.
 */
export const LOAD_NOTHING_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

/**
 * The headers every response of the read API, the dashboard's API and its UI carries: the given
 * Content-Security-Policy, no MIME sniffing (a JSON body holding agent output is never run as a
 * script or page), no framing (clickjacking), and no Referer leaving with trace ids in the URL.
 * Set before the route runs, so errors and 401s carry them too.
 */
export function securityHeaders(contentSecurityPolicy = LOAD_NOTHING_POLICY): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': contentSecurityPolicy,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Referrer-Policy': 'no-referrer',
    })
    next()
  }
}
