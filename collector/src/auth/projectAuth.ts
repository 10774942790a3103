import type { IncomingHttpHeaders } from 'node:http'
import type { RequestHandler } from 'express'

/** The project every request belongs to when Sieve runs without API keys. */
export const DEFAULT_PROJECT = 'default'

export type AuthResult = { ok: true; projectId: string } | { ok: false; message: string }

function presentedKey(headers: IncomingHttpHeaders): string | undefined {
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1]?.trim()
  if (bearer) return bearer
  const header = headers['x-api-key']
  return (Array.isArray(header) ? header[0] : header)?.trim() || undefined
}

/**
 * Maps the API key of a request (`Authorization: Bearer KEY` or `x-api-key: KEY`) to its project.
 * Ingest and reads share this, so a key sees exactly the data it sent. Without configured keys
 * everything belongs to project `default`.
 */
export function authenticate(apiKeys: ReadonlyMap<string, string>, headers: IncomingHttpHeaders): AuthResult {
  if (apiKeys.size === 0) return { ok: true, projectId: DEFAULT_PROJECT }
  const key = presentedKey(headers)
  if (!key) return { ok: false, message: 'missing API key: send `Authorization: Bearer <key>` or `x-api-key: <key>`' }
  const projectId = apiKeys.get(key)
  if (projectId === undefined) return { ok: false, message: 'unknown API key' }
  return { ok: true, projectId }
}

/** Express guard: 401 with a JSON error, or `res.locals.projectId` set for the handlers after it. */
export function requireProject(apiKeys: ReadonlyMap<string, string>): RequestHandler {
  return (req, res, next) => {
    const result = authenticate(apiKeys, req.headers)
    if (!result.ok) {
      res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: { code: 'UNAUTHORIZED', message: result.message } })
      return
    }
    res.locals.projectId = result.projectId
    next()
  }
}
