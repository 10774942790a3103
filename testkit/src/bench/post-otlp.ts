import { Agent, request } from 'node:http'

/** What a collector answered one request: its status and, for 429 and 503, its `Retry-After`. */
export interface OtlpAnswer {
  status: number
  retryAfter?: string
}

/**
 * The benchmarks' OTLP sender: protobuf bodies POSTed over kept-alive connections with plain
 * node:http. On this 2-core machine the sender shares the cores with what it measures, and
 * node:http costs a fraction of the CPU `fetch` does for the same requests. `send` rejects with
 * the socket's error (ECONNRESET) when no answer comes.
 */
export function otlpSender(url: string, connections: number): { post(body: Buffer): Promise<number>; send(body: Buffer): Promise<OtlpAnswer>; close(): void } {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  const target = new URL(url)
  const send = (body: Buffer) =>
    new Promise<OtlpAnswer>((resolve, reject) => {
      const req = request(target, { method: 'POST', agent, headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length } }, (res) => {
        res.resume()
        const retryAfter = res.headers['retry-after']
        res.on('end', () => resolve({ status: res.statusCode!, ...(retryAfter === undefined ? {} : { retryAfter }) }))
        res.on('error', reject)
      })
      // Whether the connection was a kept-alive one reused: a reset there is the race of idle timeouts.
      req.on('error', (err) => reject(Object.assign(err, { reusedSocket: req.reusedSocket })))
      req.end(body)
    })
  return { send, post: async (body) => (await send(body)).status, close: () => agent.destroy() }
}

export interface SentRequests {
  /** HTTP status of each request, in the order they were given. */
  statuses: number[]
  /** Milliseconds from sending each request to its answer, in the order they ended. */
  latencies: number[]
  elapsedMs: number
}

/** Sends every body, `concurrency` in flight at a time, over one sender's kept-alive connections. */
export async function sendAll(url: string, bodies: readonly Buffer[], concurrency: number): Promise<SentRequests> {
  const sender = otlpSender(url, concurrency)
  const statuses: number[] = []
  const latencies: number[] = []
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const index = next++
        const sent = performance.now()
        statuses[index] = await sender.post(bodies[index]!)
        latencies.push(performance.now() - sent)
      }
    }),
  )
  const elapsedMs = performance.now() - started
  sender.close()
  return { statuses, latencies, elapsedMs }
}
