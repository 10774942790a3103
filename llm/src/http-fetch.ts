import http from 'node:http'
import https from 'node:https'
import { listenOnSockets } from '@sieve/protocol'

/**
 * A `fetch` for the openai client over node:http(s) with keep-alive agents. The judge runs in the
 * scorer's process, and Node's built-in fetch costs three to four times the CPU per call; this
 * keeps the judge's share of the scorer's core small. Non-streaming requests only (all the judge
 * makes): the body is a string or bytes, the answer is read whole.
 */
const agents = { 'http:': listenOnSockets(new http.Agent({ keepAlive: true })), 'https:': listenOnSockets(new https.Agent({ keepAlive: true })) }

function abortError(signal: AbortSignal): Error {
  const err = new Error(signal.reason instanceof Error ? signal.reason.message : 'The operation was aborted')
  err.name = 'AbortError'
  return err
}

export function keepAliveFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
  if (input instanceof Request) return fetch(input, init)
  const url = new URL(input)
  const transport = url.protocol === 'https:' ? https : url.protocol === 'http:' ? http : undefined
  if (!transport) return fetch(input, init)
  const signal = init.signal ?? undefined
  if (signal?.aborted) return Promise.reject(abortError(signal))
  const body = init.body
  if (body !== undefined && body !== null && typeof body !== 'string' && !(body instanceof Uint8Array)) return fetch(input, init)
  const headers = Object.fromEntries(new Headers(init.headers).entries())
  if (body !== undefined && body !== null) headers['content-length'] = String(Buffer.byteLength(body))
  return new Promise<Response>((resolve, reject) => {
    const req = transport.request(url, { method: init.method ?? 'GET', headers, agent: agents[url.protocol as 'http:' | 'https:'] }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        signal?.removeEventListener('abort', onAbort)
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          if (Array.isArray(value)) for (const v of value) responseHeaders.append(name, v)
          else if (value !== undefined) responseHeaders.set(name, value)
        }
        const status = res.statusCode ?? 502
        // A Response cannot carry a body with these statuses.
        const payload = status === 204 || status === 304 ? null : Buffer.concat(chunks)
        resolve(new Response(payload, { status, statusText: res.statusMessage ?? '', headers: responseHeaders }))
      })
    })
    const onAbort = () => {
      req.destroy(abortError(signal!))
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    req.on('error', (err) => {
      signal?.removeEventListener('abort', onAbort)
      reject(signal?.aborted ? abortError(signal) : err)
    })
    req.end(body ?? undefined)
  })
}
