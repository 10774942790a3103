import type { Agent } from 'node:http'
import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto'
import { listenOnSockets } from '@sieve/protocol'
import type { SdkConfig } from '../config.js'

/** The standard OTLP/HTTP exporter for the configured protocol (protobuf by default). */
export function createOtlpExporter(config: SdkConfig): SpanExporter {
  const options = {
    url: config.tracesUrl,
    headers: config.headers,
    compression: config.compression as never,
    timeoutMillis: config.exportTimeoutMillis,
    httpAgentOptions: guardedAgent,
  }
  return config.protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options)
}

/**
 * The exporter's keep-alive agent, its sockets always listening for errors (`listenOnSockets`): a
 * collector closing a connection must never become an uncaught exception in the host. Loaded
 * lazily, as the exporter's default agent is, so that an HTTP instrumentation patches the module
 * first.
 */
export async function guardedAgent(protocol: string): Promise<Agent> {
  const { Agent } = protocol === 'http:' ? await import('node:http') : await import('node:https')
  return listenOnSockets(new Agent({ keepAlive: true }))
}
