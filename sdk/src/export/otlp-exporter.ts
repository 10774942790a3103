import type { Agent } from 'node:http'
import type { Duplex } from 'node:stream'
import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto'
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

type CreateConnection = (options: object, callback?: (error: Error | null, socket: Duplex) => void) => Duplex | undefined

/**
 * The exporter's keep-alive agent, with an error listener on every socket it opens. Node's HTTP
 * client leaves a socket without one between the end of a response and the pool taking the socket
 * back (a TODO in Node's own `_http_client`), and a collector closing the connection then (a write
 * answered `EPIPE`, a reset) throws the error into the host as an uncaught exception. The request
 * still sees the error through its own listener; the socket is destroyed as before.
 *
 * Loaded lazily, as the exporter's default agent is, so that an HTTP instrumentation patches the
 * module first.
 */
export async function guardedAgent(protocol: string): Promise<Agent> {
  const { Agent } = protocol === 'http:' ? await import('node:http') : await import('node:https')
  const agent = new Agent({ keepAlive: true })
  const pooled = agent as unknown as { createConnection: CreateConnection }
  const open = pooled.createConnection.bind(agent)
  // Node's own agents return the socket (the callback form is for agents that connect asynchronously).
  pooled.createConnection = (options, callback) => open(options, callback)?.on('error', ignoreSocketError)
  return agent
}

function ignoreSocketError(): void {}
