import { readFileSync } from 'node:fs'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { AGENT_ENV, agentTurnInputSchema } from '@sieve/protocol'
import { traceEchoTurn } from './echo-turn.js'

/**
 * An agent for `sieve simulate`'s tests that says where it is: its answer names the run it was
 * told it is part of (SIEVE_SIMULATION and the input's `simulation`), its session and turn, and
 * the fixtures it was given, so a test can tell whose spans a run was scored on. It sends one trace
 * per turn with the real OpenTelemetry SDK, tagged `sieve.simulation.*`, and calls no model.
 */
const input = agentTurnInputSchema.parse(JSON.parse(readFileSync(0, 'utf8')))
const env = (name: keyof typeof AGENT_ENV) => process.env[AGENT_ENV[name]]
const answer = `run ${env('simulation')} turn ${env('turn')} session ${env('sessionId')} fixtures ${JSON.stringify(input.fixtures ?? null)} heard ${input.messages.length} message(s)`
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'echo' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${env('endpoint')}/v1/traces` }))],
})
traceEchoTurn(provider.getTracer('simulation-echo'), {
  messages: input.messages,
  sessionId: env('sessionId') ?? '',
  ...(input.simulation ? { simulation: input.simulation } : {}),
  answer,
})
await provider.shutdown()
