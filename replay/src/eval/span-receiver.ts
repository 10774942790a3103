import express from 'express'
import type { Span } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/metrics'
import { createOtlpRouter, listen } from '@sieve/http'

/**
 * The collector's own OTLP/HTTP receiver on 127.0.0.1, keeping spans in memory: the agent under
 * test sends its traces here exactly as it would to Sieve, and the gate takes them run by run.
 *
 * A command agent is told this receiver's endpoint, and each run in flight has a receiver of its
 * own, so `take()` hands over everything that came. A long-running HTTP agent exports to one
 * endpoint for all runs: its calls are told apart by the trace each request starts (`traceparent`),
 * and spans of traces no call is waiting for are dropped.
 */
export interface SpanReceiver {
  /** Base URL for SIEVE_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string
  /** The spans received since the last call, of traces no call awaits. */
  take(): Span[]
  /** Keeps the spans of this trace for `awaitTrace`, from now on. */
  expect(traceId: string): void
  /**
   * The spans of an expected trace, once the span the agent opened under `parentSpanId` (the
   * caller's span in `traceparent`) has come, or after `waitMs` with what came by then. Spans are
   * exported as they end, so the entry span, which ends last, comes after the spans it holds.
   */
  awaitTrace(traceId: string, parentSpanId: string, waitMs: number): Promise<Span[]>
  /** Spans dropped so far because no call awaited their trace (`keepUnexpected` off): of traces no call started, and of traces whose call had ended. */
  strays(): { unknown: number; late: number }
  close(): Promise<void>
}

export interface SpanReceiverOptions {
  /** 0 (the default): any free port. */
  port?: number
  maxBodyBytes?: number
  /** Keep spans of traces no call expects for `take()`; off for a receiver shared by concurrent calls. */
  keepUnexpected?: boolean
}

/** How many ended calls' traces are remembered to tell a late span from a stray one. */
const MAX_ENDED = 10_000

interface Expected {
  spans: Span[]
  /** Set by awaitTrace: resolves it when the entry span comes. */
  entry?: { parentSpanId: string; arrived: () => void }
}

export async function startSpanReceiver(options: SpanReceiverOptions = {}): Promise<SpanReceiver> {
  const { port = 0, maxBodyBytes = 16 * 1024 * 1024, keepUnexpected = true } = options
  const queue = new InProcessQueue({ gates: ['sieve-eval'] })
  let received: Span[] = []
  const strays = { unknown: 0, late: 0 }
  // The traces of recent calls, oldest first, so a span exported after its call ended counts as late.
  const ended = new Set<string>()
  const expected = new Map<string, Expected>()
  const subscription = await queue.subscribe({
    group: 'sieve-eval',
    onBatch: async (batch) => {
      for (const { span } of batch) {
        const waiting = expected.get(span.traceId)
        if (!waiting) {
          if (keepUnexpected) received.push(span)
          else if (ended.has(span.traceId)) strays.late++
          else strays.unknown++
          continue
        }
        waiting.spans.push(span)
        if (waiting.entry && span.parentSpanId === waiting.entry.parentSpanId) waiting.entry.arrived()
      }
    },
  })
  const app = express()
  app.use(createOtlpRouter({ queue, apiKeys: new Map(), maxBodyBytes, metrics: createPipelineMetrics() }))
  const server = await listen(app, '127.0.0.1', port)
  return {
    endpoint: server.url,
    take() {
      const spans = received
      received = []
      return spans
    },
    expect(traceId) {
      if (!expected.has(traceId)) expected.set(traceId, { spans: [] })
    },
    async awaitTrace(traceId, parentSpanId, waitMs) {
      const waiting = expected.get(traceId) ?? { spans: [] }
      expected.set(traceId, waiting)
      if (!waiting.spans.some((s) => s.parentSpanId === parentSpanId)) {
        let timer: NodeJS.Timeout | undefined
        await new Promise<void>((resolve) => {
          waiting.entry = { parentSpanId, arrived: resolve }
          timer = setTimeout(resolve, waitMs)
        })
        clearTimeout(timer)
      }
      expected.delete(traceId)
      ended.add(traceId)
      if (ended.size > MAX_ENDED) ended.delete(ended.values().next().value!)
      return waiting.spans
    },
    strays: () => ({ ...strays }),
    async close() {
      await server.stop()
      await subscription.close()
      await queue.close()
    },
  }
}
