import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { resolveAnswer } from './answer.js'
import { chatCompletion, chatCompletionChunks } from './chat-completions.js'
import { response, responseEvents } from './responses.js'
import type { Api, ModelRequest, Script, Step } from './script.js'

export interface FakeOpenAIOptions {
  script: Script
  /** Pause between streamed chunks, so a caller can observe a stream in progress. */
  chunkDelayMs?: number
}

export interface FakeOpenAI {
  /** Base URL for an OpenAI client, ending in `/v1`. */
  baseURL: string
  /** Every request received, in order, including the ones answered with errors. */
  requests: ModelRequest[]
  /** Appends steps to a queue script. */
  push(...steps: Step[]): void
  /** Replaces the script. */
  setScript(script: Script): void
  close(): Promise<void>
}

const ROUTES: Record<string, Api> = { '/v1/chat/completions': 'chat.completions', '/v1/responses': 'responses' }

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

const apiError = (message: string, type: string, code: string | null = null) => ({ error: { message, type, param: null, code } })

/**
 * A local OpenAI-compatible server (Chat Completions and Responses, plain and streaming) answering
 * from a script. Listens on 127.0.0.1 on an ephemeral port.
 */
export async function startFakeOpenAI(options: FakeOpenAIOptions): Promise<FakeOpenAI> {
  let script: Script = Array.isArray(options.script) ? [...options.script] : options.script
  const requests: ModelRequest[] = []
  const chunkDelayMs = options.chunkDelayMs ?? 0

  async function nextStep(request: ModelRequest): Promise<Step | undefined> {
    return Array.isArray(script) ? script.shift() : script(request)
  }

  /** Writes server-sent events; `data` is already serialized. */
  async function stream(res: ServerResponse, events: [event: string | null, data: string][]) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    for (const [event, data] of events) {
      if (res.destroyed) return
      res.write(`${event ? `event: ${event}\n` : ''}data: ${data}\n\n`)
      if (chunkDelayMs) await sleep(chunkDelayMs)
    }
    res.end()
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    const api = ROUTES[path]
    if (!api || req.method !== 'POST') {
      return sendJson(res, 404, apiError(`fake-openai serves POST ${Object.keys(ROUTES).join(' and ')}, not ${req.method} ${path}`, 'invalid_request_error'))
    }
    const raw = await readBody(req)
    let body: any
    try {
      body = JSON.parse(raw)
    } catch {
      body = undefined
    }
    const request: ModelRequest = { index: requests.length, api, method: req.method, path, headers: req.headers, body, stream: body?.stream === true }
    requests.push(request)
    if (body === undefined || typeof body !== 'object') {
      return sendJson(res, 400, apiError('request body must be a JSON object', 'invalid_request_error'))
    }

    const step = await nextStep(request)
    if (!step) {
      return sendJson(res, 500, apiError(`fake-openai: the script has no answer for request #${request.index}`, 'server_error'))
    }
    if (step.delayMs) await sleep(step.delayMs)
    if (step.type === 'error') {
      const headers: Record<string, string> = step.retryAfterSeconds !== undefined ? { 'retry-after': String(step.retryAfterSeconds) } : {}
      const type = step.status === 429 ? 'rate_limit_exceeded' : step.status >= 500 ? 'server_error' : 'invalid_request_error'
      return sendJson(res, step.status, apiError(step.message ?? `scripted HTTP ${step.status}`, type, type), headers)
    }
    if (step.type === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' })
      return res.end('{"id": "truncated", "choices": [')
    }

    const answer = resolveAnswer(step, request)
    if (api === 'chat.completions') {
      if (!request.stream) return sendJson(res, 200, chatCompletion(answer))
      const includeUsage = body.stream_options?.include_usage === true
      const chunks = chatCompletionChunks(answer, includeUsage).map((c): [null, string] => [null, JSON.stringify(c)])
      return stream(res, [...chunks, [null, '[DONE]']])
    }
    if (!request.stream) return sendJson(res, 200, response(answer, body))
    return stream(
      res,
      responseEvents(answer, body).map(([event, data]): [string, string] => [event, JSON.stringify(data)]),
    )
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendJson(res, 500, apiError(`fake-openai: ${err.message}`, 'server_error'))
      else res.destroy(err)
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', resolve)
  })
  const { port } = server.address() as AddressInfo

  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    push(...steps) {
      if (!Array.isArray(script)) script = []
      script.push(...steps)
    },
    setScript(next) {
      script = Array.isArray(next) ? [...next] : next
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
