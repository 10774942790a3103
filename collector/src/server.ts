import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Express } from 'express'

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4318 */
  url: string
  port: number
  /** Stops accepting connections and waits for requests in flight to finish. */
  stop(): Promise<void>
}

export async function listen(app: Express, host: string, port: number): Promise<RunningServer> {
  const server: Server = app.listen(port, host)
  await once(server, 'listening')
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}`,
    port: address.port,
    stop: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      await closed
    },
  }
}
