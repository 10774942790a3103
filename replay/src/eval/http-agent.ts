import { randomBytes } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import { agentAnswerSchema, listenOnSockets, traceparentOf, type AgentHttpRequest } from '@sieve/protocol'
import { agentInput, callContext, type AgentTurn } from './run-agent.js'

/** An agent given as an http(s) URL is a service answering each turn over HTTP. */
export const isHttpAgent = (agent: string): boolean => /^https?:\/\//i.test(agent)

export interface HttpAgentRun {
  /** The answer the response carries (`{"answer": "..."}`); absent: read it from the trace. */
  answer?: string
  /** The call failed: a non-2xx status with the start of its body, or a timeout. */
  error?: string
  /** Nothing answered at the URL (connection refused, unknown host): a setup problem. */
  unreachable?: string
}

/** The request's place in a trace: the agent's spans continue `traceId`, its entry span under `parentSpanId`. */
export interface CallIds {
  traceId: string
  parentSpanId: string
}

export const newCallIds = (): CallIds => ({ traceId: randomBytes(16).toString('hex'), parentSpanId: randomBytes(8).toString('hex') })

/** The response's `answer` when its body is JSON carrying one. */
function answerOf(contentType: string | undefined, body: string): string | undefined {
  if (!/json/i.test(contentType ?? '')) return undefined
  try {
    return agentAnswerSchema.safeParse(JSON.parse(body)).data?.answer
  } catch {
    return undefined
  }
}

// node:http rather than fetch: per call, fetch's web streams cost the runner more than the rest of a turn.
const agents = { 'http:': listenOnSockets(new http.Agent({ keepAlive: true })), 'https:': listenOnSockets(new https.Agent({ keepAlive: true })) }

/** Most of a response the runner reads: an answer, or the start of an error. */
const MAX_RESPONSE_BYTES = 1024 * 1024

interface Posted {
  status: number
  contentType?: string
  body: string
}

/**
 * One POST, the response body capped at MAX_RESPONSE_BYTES (an error past it). A kept-alive socket
 * the server closed while idle resets the request before any answer: that one is sent again.
 */
function post(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, retried = false): Promise<Posted> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http
    const req = client.request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent: agents[url.protocol as 'http:'],
        signal: AbortSignal.timeout(timeoutMs),
      },
      (res) => {
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > MAX_RESPONSE_BYTES)
            return req.destroy(Object.assign(new Error(`the response is over ${MAX_RESPONSE_BYTES} bytes`), { code: 'RESPONSE_TOO_LARGE' }))
          chunks.push(chunk)
        })
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      },
    )
    req.on('error', (err: Error & { code?: string }) => {
      if (!retried && req.reusedSocket && err.code === 'ECONNRESET') post(url, headers, body, timeoutMs, true).then(resolve, reject)
      else reject(err)
    })
    req.end(body)
  })
}

/**
 * One turn through an HTTP agent, in the agent protocol's HTTP form (`@sieve/protocol`,
 * agent-protocol.ts): POST the turn input plus `sieve`, with a W3C `traceparent` whose trace the
 * agent's spans join, so runs in flight at once are told apart by trace.
 */
export async function callHttpAgent(url: string, turn: AgentTurn, ids: CallIds, timeoutMs: number): Promise<HttpAgentRun> {
  let response: Posted
  try {
    const headers = { 'content-type': 'application/json', traceparent: traceparentOf(ids.traceId, ids.parentSpanId) }
    const request: AgentHttpRequest = { ...agentInput(turn), sieve: callContext(turn) }
    response = await post(new URL(url), headers, JSON.stringify(request), timeoutMs)
  } catch (err) {
    const e = err as Error & { code?: string; cause?: Error }
    if (e.name === 'AbortError' && e.cause?.name === 'TimeoutError') return { error: `timed out after ${timeoutMs} ms` }
    // Refused or no such host: nothing answers there. Reset or cut mid-answer: the agent failed this call.
    if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN') return { unreachable: e.code }
    return { error: `${url}: ${e.code ?? e.message}` }
  }
  if (response.status < 200 || response.status > 299) {
    const text = response.body.trim().split('\n')[0]!.slice(0, 200)
    return { error: `HTTP ${response.status}${text ? `: ${text}` : ''}` }
  }
  const answer = answerOf(response.contentType, response.body)
  return { ...(answer !== undefined ? { answer } : {}) }
}
