import type { AddressInfo } from 'node:net'
import express, { type RequestHandler } from 'express'
import { createDashboardApi, type DashboardApiOptions } from '../../src/index.js'

/**
 * API-key scoping as the collector applies it: `x-api-key` → project, no key → 401. Stands in for the
 * receiver's middleware in these tests, which exercise the dashboard routes, not authentication.
 */
export const keyAuth =
  (keys: Record<string, string>): RequestHandler =>
  (req, res, next) => {
    const project = keys[String(req.headers['x-api-key'] ?? '')]
    if (!project) {
      res.status(401).json({ error: { code: 'UNAUTHENTICATED', message: 'missing or unknown API key' } })
      return
    }
    res.locals.projectId = project
    next()
  }

export async function startApi(options: Omit<DashboardApiOptions, 'authenticate'> & { keys: Record<string, string> }) {
  const app = express()
  app.use('/api', createDashboardApi({ ...options, authenticate: keyAuth(options.keys) }))
  const server = app.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    base,
    async get(path: string, key = Object.keys(options.keys)[0]!) {
      const res = await fetch(base + path, { headers: { 'x-api-key': key } })
      return { status: res.status, body: (await res.json()) as any }
    },
    async post(path: string, body: unknown, key = Object.keys(options.keys)[0]!) {
      const res = await fetch(base + path, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: res.status, body: (await res.json()) as any }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
