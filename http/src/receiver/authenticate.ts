import type { IncomingHttpHeaders } from 'node:http'
import { unauthorized } from './receiver-error.js'

/** The project every span goes to when no API keys are configured. */
export const DEFAULT_PROJECT = 'default'

/**
 * The project a request belongs to, from `Authorization: Bearer <key>` or `x-api-key: <key>`.
 * With no keys configured there is no auth and everything belongs to `default`.
 */
export function projectOf(headers: IncomingHttpHeaders, apiKeys: ReadonlyMap<string, string>): string {
  if (apiKeys.size === 0) return DEFAULT_PROJECT
  const bearer = bearerToken(headers)
  const headerKey = headers['x-api-key']
  const key = bearer ?? (typeof headerKey === 'string' ? headerKey.trim() : undefined)
  if (!key) throw unauthorized('missing API key: send Authorization: Bearer <key> or x-api-key: <key>')
  const project = apiKeys.get(key)
  if (project === undefined) throw unauthorized('API key not recognized')
  return project
}

/** The token of `Authorization: Bearer <token>`, when the request sends one. */
export function bearerToken(headers: IncomingHttpHeaders): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(headers.authorization ?? '')?.[1]
}
