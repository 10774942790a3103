import assert from 'node:assert/strict'
import { test } from 'node:test'
import { context, trace } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { BasicTracerProvider, InMemorySpanExporter } from '@opentelemetry/sdk-trace-base'
import { createSieveSpanProcessor, exportStats, flush, traceAgent, traceTool } from '@sieve/sdk'

test('an app that builds its own provider adds the Sieve processor and Sieve gets all its spans', async () => {
  const sieve = new InMemorySpanExporter()
  const processor = createSieveSpanProcessor({ exporter: sieve, captureContent: false, scheduledDelayMillis: 5 })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [processor] }))

  const tool = traceTool('check_order_status', (id: string) => ({ id, status: 'shipped' }))
  const result = await trace.getTracer('app').startActiveSpan('POST /chat', async (span) => {
    const out = await traceAgent('support-turn', async () => tool('A1'))
    span.end()
    return out
  })
  assert.deepEqual(result, { id: 'A1', status: 'shipped' })
  await flush()
  const spans = sieve.getFinishedSpans()
  assert.deepEqual(spans.map((s) => s.name).sort(), ['POST /chat', 'execute_tool check_order_status', 'invoke_agent support-turn'])
  const toolSpan = spans.find((s) => s.name.startsWith('execute_tool'))!
  assert.equal(toolSpan.attributes['gen_ai.tool.call.arguments'], undefined, 'captureContent: false applies')
  assert.equal(exportStats().exported, 3)
})
