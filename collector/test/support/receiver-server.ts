import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express from 'express'
import type { SpanQueue } from '@sieve/core'
import { createPipelineMetrics, type PipelineMetrics } from '@sieve/metrics'
import { BytesInFlight, createOtlpRouter } from '@sieve/http'

export interface ReceiverServer {
  url: string
  metrics: PipelineMetrics
  close(): Promise<void>
}

/** An express app with just the OTLP router, listening on an ephemeral loopback port. */
export async function startReceiver(options: {
  queue: SpanQueue
  apiKeys?: Map<string, string>
  maxBodyBytes?: number
  maxBytesInFlight?: number
  log?: (message: string) => void
}): Promise<ReceiverServer> {
  const metrics = createPipelineMetrics()
  const app = express()
  app.use(
    createOtlpRouter({
      queue: options.queue,
      apiKeys: options.apiKeys ?? new Map(),
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      metrics,
      ...(options.log ? { log: options.log } : {}),
      ...(options.maxBytesInFlight ? { bytesInFlight: new BytesInFlight(options.maxBytesInFlight, metrics) } : {}),
    }),
  )
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    metrics,
    close: () => new Promise((resolve, reject) => server.close((err) => (err ? reject(err) : resolve()))),
  }
}
