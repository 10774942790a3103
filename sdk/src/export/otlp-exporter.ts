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
  }
  return config.protocol === 'http/json' ? new JsonExporter(options) : new ProtoExporter(options)
}
