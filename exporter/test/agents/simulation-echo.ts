import { readFileSync } from 'node:fs'
import { context, trace } from '@opentelemetry/api'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { resourceFromAttributes } from '@opentelemetry/resources'
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'

/**
 * An agent for `sieve simulate`'s tests that says where it is: its answer names the run it was
 * told it is part of (SIEVE_SIMULATION and the input's `simulation`), its session and turn, and
 * the fixtures it was given, so a test can tell whose spans a run was scored on. It sends one trace
 * per turn with the real OpenTelemetry SDK, tagged `sieve.simulation.*`, and calls no model.
 */
const input = JSON.parse(readFileSync(0, 'utf8')) as { messages: { role: string; content: string }[]; fixtures?: unknown; simulation?: { scenario: string; template: string; run: number } }
const sim = input.simulation
const answer = `run ${process.env.SIEVE_SIMULATION} turn ${process.env.SIEVE_EVAL_TURN} session ${process.env.SIEVE_EVAL_SESSION_ID} fixtures ${JSON.stringify(input.fixtures ?? null)} heard ${input.messages.length} message(s)`
const provider = new BasicTracerProvider({
  resource: resourceFromAttributes({ 'service.name': 'echo' }),
  spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: `${process.env.SIEVE_ENDPOINT}/v1/traces` }))],
})
const tracer = provider.getTracer('simulation-echo')
const tags = sim ? { 'sieve.simulation.scenario': sim.scenario, 'sieve.simulation.template': sim.template, 'sieve.simulation.run': sim.run } : {}
const root = tracer.startSpan('invoke_agent echo', {
  attributes: {
    ...tags,
    'gen_ai.operation.name': 'invoke_agent',
    'gen_ai.agent.name': 'echo',
    'gen_ai.conversation.id': process.env.SIEVE_EVAL_SESSION_ID ?? '',
    'gen_ai.input.messages': JSON.stringify(input.messages.map((m) => ({ role: m.role, parts: [{ type: 'text', content: m.content }] }))),
  },
})
tracer.startSpan('execute_tool look_up', { attributes: { ...tags, 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'look_up', 'gen_ai.tool.call.id': 'call_1' } }, trace.setSpan(context.active(), root)).end()
root.setAttribute('gen_ai.output.messages', JSON.stringify([{ role: 'assistant', parts: [{ type: 'text', content: answer }], finish_reason: 'stop' }]))
root.end()
await provider.shutdown()
