import { readFileSync } from 'node:fs'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { traceEchoTurn } from './echo-turn.js'

/**
 * An agent for `sieve simulate`'s tests that says where it is: its answer names the run it was
 * told it is part of (SIEVE_SIMULATION and the input's `simulation`), its session and turn, and
 * the fixtures it was given, so a test can tell whose spans a run was scored on. It sends one trace
 * per turn with the real OpenTelemetry SDK, tagged `sieve.simulation.*`, and calls no model.
 */
const input = JSON.parse(readFileSync(0, 'utf8')) as { messages: { role: string; content: string }[]; fixtures?: unknown; simulation?: { scenario: string; template: string; run: number } }
const answer = `run ${process.env.SIEVE_SIMULATION} turn ${process.env.SIEVE_EVAL_TURN} session ${process.env.SIEVE_EVAL_SESSION_ID} fixtures ${JSON.stringify(input.fixtures ?? null)} heard ${input.messages.length} message(s)`
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'echo' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${process.env.SIEVE_ENDPOINT}/v1/traces` }))],
})
traceEchoTurn(provider.getTracer('simulation-echo'), { messages: input.messages, sessionId: process.env.SIEVE_EVAL_SESSION_ID ?? '', ...(input.simulation ? { simulation: input.simulation } : {}), answer })
await provider.shutdown()
