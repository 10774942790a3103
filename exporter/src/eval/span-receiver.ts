import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import type { Span } from '@sieve/core'
import { InProcessQueue } from '@sieve/queue'
import { createPipelineMetrics } from '@sieve/core'
import { createOtlpRouter } from '@sieve/collector'

/**
 * The collector's own OTLP/HTTP receiver on 127.0.0.1, keeping spans in memory: the agent under
 * test sends its traces here exactly as it would to Sieve, and the gate takes them run by run.
 */
export interface SpanReceiver {
  /** Base URL for SIEVE_ENDPOINT / OTEL_EXPORTER_OTLP_ENDPOINT. */
  endpoint: string
  /** The spans received since the last call. */
  take(): Span[]
  close(): Promise<void>
}

export async function startSpanReceiver(maxBodyBytes = 16 * 1024 * 1024): Promise<SpanReceiver> {
  const queue = new InProcessQueue()
  let received: Span[] = []
  const subscription = await queue.subscribe({
    group: 'sieve-eval',
    gatesPublish: true,
    onBatch: async (batch) => {
      for (const queued of batch) received.push(queued.span)
    },
  })
  const app = express()
  app.use(createOtlpRouter({ queue, apiKeys: new Map(), maxBodyBytes, metrics: createPipelineMetrics() }))
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    take() {
      const spans = received
      received = []
      return spans
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await subscription.close()
      await queue.close()
    },
  }
}
