import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { context, propagation } from '@opentelemetry/api'
import { agentCallContextSchema, flush, init, shutdown, type AgentAnswer } from '@sieve/sdk'
import { answerProtocolTurn, modelClient, promptVersionFor, protocolInput } from './protocol-turn.js'

/**
 * The support agent as a service behind Sieve's agent protocol over HTTP, as `sieve eval` and
 * `sieve simulate` call an agent given as a URL: each turn's input POSTed as JSON, the turn traced
 * under the request's `traceparent`, the trace flushed to SIEVE_ENDPOINT before the answer goes
 * back as `{"answer": "..."}`. Prints its URL once listening. The model: OPENAI_API_KEY,
 * OPENAI_BASE_URL, OPENAI_MODEL (default gpt-4o-mini).
 *   --port N   default 8787 (0: any free port)
 *   --broken   the regressed prompt, which refunds outside the policy window
 */
const { values } = parseArgs({ options: { port: { type: 'string', default: '8787' }, broken: { type: 'boolean', default: false } } })
const broken = values.broken
// Of the call's context (`sieve`) the agent uses the session id, when given.
const request = protocolInput.extend({ sieve: agentCallContextSchema.pick({ sessionId: true }).partial().optional() })

init({ serviceName: 'support-agent', agentVersion: 'v12', promptVersion: promptVersionFor(broken), captureContent: true })
const model = modelClient()

async function body(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

const server = createServer(async (req, res) => {
  const reply = (status: number, payload: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
  if (req.method !== 'POST') return reply(405, { error: 'POST a turn' })
  const input = request.safeParse(await body(req).catch(() => undefined))
  if (!input.success) return reply(400, { error: input.error.message })
  try {
    const parent = propagation.extract(context.active(), req.headers)
    const turn = await context.with(parent, () => answerProtocolTurn(model, input.data, { broken, sessionId: input.data.sieve?.sessionId ?? 'eval' }))
    await flush()
    reply(200, { answer: turn.answer } satisfies AgentAnswer)
  } catch (err) {
    reply(500, { error: (err as Error).message })
  }
})
server.listen(Number(values.port), '127.0.0.1', () => console.log(`support agent listening on http://127.0.0.1:${(server.address() as AddressInfo).port}/`))

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () =>
    server.close(async () => {
      await shutdown()
    }),
  )
}
