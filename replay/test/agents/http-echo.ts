import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { defaultTextMapGetter, ROOT_CONTEXT } from '@opentelemetry/api'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { agentHttpRequestSchema, simulationTag, type AgentHttpRequest } from '@sieve/protocol'
import { traceEchoTurn } from './echo-turn.js'

/**
 * An agent service for the HTTP agent protocol's tests, in the test's process: it answers each
 * POSTed turn with where it is (run, turn, session from the request) and traces the turn with the
 * real OpenTelemetry SDK to `otlpEndpoint`, under the request's `traceparent`. Its behaviours:
 *   answers            flushes the trace, then answers `{"answer": ...}` (a well-behaved agent)
 *   late-spans         answers `{}` at once and exports the trace 300 ms later: the answer is in the trace only
 *   ignores-context    answers, its trace a new one of its own (no HTTP instrumentation, no extract)
 *   fails              HTTP 500
 *   hangs              never answers
 *   floods             answers 2 MiB
 */
export type EchoBehaviour = 'answers' | 'late-spans' | 'ignores-context' | 'fails' | 'hangs' | 'floods'

export interface HttpEcho {
  url: string
  requests: { headers: IncomingHttpHeaders; body: AgentHttpRequest }[]
  close(): Promise<void>
}

export async function startHttpEcho(otlpEndpoint: string, behaviour: EchoBehaviour = 'answers'): Promise<HttpEcho> {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'echo' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: `${otlpEndpoint}/v1/traces` }), { scheduledDelayMillis: 60_000 })],
  })
  const tracer = provider.getTracer('http-echo')
  const propagator = new W3CTraceContextPropagator()
  const requests: HttpEcho['requests'] = []
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = agentHttpRequestSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')))
    requests.push({ headers: req.headers, body })
    const reply = (status: number, payload: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload))
    if (behaviour === 'fails') return reply(500, { error: 'boom' })
    if (behaviour === 'hangs') return
    if (behaviour === 'floods') return reply(200, { answer: 'x'.repeat(2 * 1024 * 1024) })
    const sim = body.simulation
    const answer = `run ${sim ? simulationTag(sim) : body.sieve.exampleId} turn ${body.sieve.turn} session ${body.sieve.sessionId} heard ${body.messages.length} message(s)`
    const parent = behaviour === 'ignores-context' ? ROOT_CONTEXT : propagator.extract(ROOT_CONTEXT, req.headers, defaultTextMapGetter)
    traceEchoTurn(tracer, { messages: body.messages, sessionId: body.sieve.sessionId, ...(sim ? { simulation: sim } : {}), answer }, parent)
    if (behaviour === 'late-spans') {
      reply(200, {})
      setTimeout(() => void provider.forceFlush(), 300)
      return
    }
    await provider.forceFlush()
    reply(200, { answer })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/turn`,
    requests,
    async close() {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await provider.shutdown()
    },
  }
}
