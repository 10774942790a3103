import type { AddressInfo } from 'node:net'
import { createDashboardApp, type DashboardApiOptions } from '../../src/index.js'

export async function startApi(options: Omit<DashboardApiOptions, 'apiKeys'> & { keys: Record<string, string> }) {
  // The dashboard role's app, read API included: what `sieve dashboard` serves.
  const app = createDashboardApp({ ...options, apiKeys: new Map(Object.entries(options.keys)), log: () => {} })
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
