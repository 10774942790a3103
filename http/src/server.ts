import { once } from 'node:events'
import type { Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Express } from 'express'

export interface RunningServer {
  /** Base URL, e.g. http://127.0.0.1:4318 */
  url: string
  port: number
  /** Stops accepting connections and waits for requests in flight to finish. */
  stop(): Promise<void>
}

/** What an operator can do about a failed listen, by the error's code. */
const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'the address is in use (another Sieve, or another server on that port)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'no network interface of this machine has that address',
}

/**
 * The idle timeout of a kept-alive connection, made safe against a stalled event loop. Node arms it
 * when an answer ends; after a stall (a large decode, a major GC) the loop runs due timers before it
 * reads the sockets, so the timer fired on a connection whose next request was already waiting in
 * the kernel and closed it under that request: the sender got ECONNRESET and no answer. With a
 * 'timeout' listener Node leaves the socket to it: it is closed only after the loop has read what
 * arrived (setImmediate runs after the poll phase), and only when no request came or is answered.
 */
function closeIfIdle(socket: Socket): void {
  const read = socket.bytesRead
  setImmediate(() => {
    const answering = (socket as Socket & { _httpMessage?: unknown })._httpMessage
    if (socket.destroyed || answering || socket.bytesRead !== read) return
    socket.destroy()
  })
}

/**
 * How long a kept-alive connection may stay idle before the server closes it. A request sent on a
 * connection the server is closing is reset, so the closing should fall to the sender, which knows
 * when it will send next. Node's 5 s default sat right on OpenTelemetry's batch export interval (5 s
 * in every SDK), and senders that do not read the `Keep-Alive: timeout` hint (Go's transport keeps
 * idle connections 90 s, Python's urllib3 without limit) reused connections as the server closed
 * them: `bench:ingest -- --soak --overload --honour-retry-after` saw a reset or EPIPE in three runs of
 * five. 65 s also outlasts load balancers' usual 60 s idle timeout, so they close first too.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 65_000

export interface ListenOptions {
  /** The idle timeout of kept-alive connections (default KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeoutMs?: number
}

/** Listens on host:port; a failure names the address and, for the usual causes, what is wrong in words. */
export async function listen(app: Express, host: string, port: number, options: ListenOptions = {}): Promise<RunningServer> {
  const server: Server = app.listen(port, host)
  server.keepAliveTimeout = options.keepAliveTimeoutMs ?? KEEP_ALIVE_TIMEOUT_MS
  server.on('timeout', closeIfIdle)
  try {
    await once(server, 'listening')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? ''
    throw new Error(`cannot listen on ${host}:${port}: ${LISTEN_PROBLEMS[code] ?? (err as Error).message}`, { cause: err })
  }
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
