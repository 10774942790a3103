import assert from 'node:assert/strict'
import { test } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { flush, init, shutdown, traceAgent, traceTool } from '@sieve/sdk'

test('joins an app that already set up OpenTelemetry without replacing its provider', async () => {
  const appSpans = new InMemorySpanExporter()
  const appProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(appSpans)] })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(appProvider)

  const sieveSpans = new InMemorySpanExporter()
  const result = init({ exporter: sieveSpans, serviceName: 'support-bot', captureContent: true })
  assert.deepEqual(result, { ok: true, mode: 'alongside' })
  assert.equal((trace.getTracerProvider() as any).getDelegate(), appProvider)

  const lookup = traceTool('check_order_status', async (id: string) => `order ${id} shipped`)
  const appTracer = trace.getTracer('app')
  const answer = await appTracer.startActiveSpan('POST /chat', async (httpSpan) => {
    const out = await traceAgent('support-turn', { sessionId: 's' }, () => lookup('A1'))
    httpSpan.end()
    return out
  })
  assert.equal(answer, 'order A1 shipped')
  await flush()

  const app = appSpans.getFinishedSpans()
  const ours = sieveSpans.getFinishedSpans()
  assert.deepEqual(
    app.map((s) => s.name),
    ['POST /chat'],
  )
  assert.deepEqual(ours.map((s) => s.name).sort(), ['execute_tool check_order_status', 'invoke_agent support-turn'])
  const agent = ours.find((s) => s.name.startsWith('invoke_agent'))!
  const tool = ours.find((s) => s.name.startsWith('execute_tool'))!
  assert.equal(agent.spanContext().traceId, app[0]!.spanContext().traceId)
  assert.equal(agent.parentSpanContext?.spanId, app[0]!.spanContext().spanId)
  assert.equal(tool.parentSpanContext?.spanId, agent.spanContext().spanId)
  assert.equal(agent.resource.attributes['service.name'], 'support-bot')
  await shutdown()
  assert.equal((trace.getTracerProvider() as any).getDelegate(), appProvider, "shutdown leaves the app's provider in place")
})
