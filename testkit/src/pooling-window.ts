import diagnostics from 'node:diagnostics_channel'
import type { ClientRequest } from 'node:http'

export interface PoolingWindowProbe {
  /** Errors raised so far: one per response that ended on a node:http client. */
  raised(): number
  /** The raised errors that found no listener (they would have reached uncaughtException). */
  readonly escaped: unknown[]
  stop(): void
}

/**
 * Raises an `EPIPE` on the socket of every node:http client request in this process as its
 * response ends: the moment Node's client has taken its listeners off a keep-alive socket and not
 * yet handed it to the pool. A peer closing the connection then is what the probe stands for; an
 * agent whose sockets do not listen throws it (caught here into `escaped`). With `origin`, only
 * requests to that origin (`http://127.0.0.1:4318`) are probed. Node announces a request when its
 * body has been sent: a server that answers before reading the body can pass the probe by.
 */
export function probePoolingWindow(origin?: string): PoolingWindowProbe {
  const host = origin === undefined ? undefined : new URL(origin).host
  let raised = 0
  const escaped: unknown[] = []
  const onRequest = (message: unknown) => {
    const { request } = message as { request: ClientRequest }
    if (host !== undefined && request.getHeader('host') !== host) return
    request.on('response', (res) =>
      res.on('end', () => {
        raised++
        try {
          request.socket?.emit('error', Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))
        } catch (error) {
          escaped.push(error)
        }
      }),
    )
  }
  diagnostics.subscribe('http.client.request.start', onRequest)
  return { raised: () => raised, escaped, stop: () => diagnostics.unsubscribe('http.client.request.start', onRequest) }
}
