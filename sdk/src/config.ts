import type { SpanExporter } from '@opentelemetry/sdk-trace-base'
import { z } from 'zod'
import { warnOnce } from './log.js'

/**
 * The SDK's settings: `init()` arguments win over `SIEVE_*` variables, which win over the standard
 * `OTEL_*` ones. Parsed once by `resolveConfig`; the rest of the SDK receives the typed `SdkConfig`.
 */

/** Where content is, when the redaction hook is asked about it. */
export type ContentKind = 'system' | 'input' | 'output' | 'tool.arguments' | 'tool.result'

/**
 * Applied to every piece of text before it leaves the process (message text, tool arguments and
 * results). Return the text to record. If it throws, the text is replaced by `[redaction failed]`.
 */
export type Redact = (text: string, kind: ContentKind) => string

const bool = z.union([z.boolean(), z.enum(['true', 'false', '1', '0', 'yes', 'no']).transform((v) => ['true', '1', 'yes'].includes(v))])
const positiveInt = z.coerce.number().int().positive()

/** `k1=v1,k2=v2`, URL-encoded values, as OTEL_EXPORTER_OTLP_HEADERS. */
const headerList = z.string().transform((raw, ctx) => {
  const headers: Record<string, string> = {}
  for (const entry of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const i = entry.indexOf('=')
    if (i <= 0) {
      ctx.addIssue({ code: 'custom', message: `header entry '${entry}' must look like name=value` })
      return z.NEVER
    }
    headers[entry.slice(0, i).trim()] = decodeURIComponent(entry.slice(i + 1).trim())
  }
  return headers
})

export const sdkOptionsSchema = z.object({
  /** Collector base URL (`http://host:4318`); spans go to `<endpoint>/v1/traces`, feedback to `<endpoint>/v1/feedback`. */
  endpoint: z.url().optional(),
  /** Full traces URL, when it is not `<endpoint>/v1/traces` (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT). */
  tracesEndpoint: z.url().optional(),
  apiKey: z.string().min(1).optional(),
  headers: z.union([z.record(z.string(), z.string()), headerList]).optional(),
  protocol: z.enum(['http/protobuf', 'http/json']).optional(),
  compression: z.enum(['gzip', 'none']).optional(),
  serviceName: z.string().min(1).optional(),
  serviceVersion: z.string().min(1).optional(),
  environment: z.string().min(1).optional(),
  agentVersion: z.string().min(1).optional(),
  promptVersion: z.string().min(1).optional(),
  /** Extra resource attributes. */
  resourceAttributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).optional(),
  /** Record prompts, completions, tool arguments and results (opt-in content of the GenAI conventions). */
  captureContent: bool.optional(),
  redact: z.custom<Redact>((v) => typeof v === 'function', 'redact must be a function (text, kind) => string').optional(),
  /** Longest text recorded per message part, in characters; longer text is cut and marked. */
  maxContentLength: positiveInt.optional(),
  /** Spans waiting for export; beyond it new spans are dropped (counted, logged once). */
  maxQueueSize: positiveInt.optional(),
  maxExportBatchSize: positiveInt.optional(),
  scheduledDelayMillis: positiveInt.optional(),
  exportTimeoutMillis: positiveInt.optional(),
  disabled: bool.optional(),
  /** Send spans to this exporter instead of OTLP/HTTP (a console exporter, an in-memory one in tests). */
  exporter: z.custom<SpanExporter>((v) => typeof (v as SpanExporter)?.export === 'function', 'exporter must implement SpanExporter').optional(),
})

export type SdkOptions = z.input<typeof sdkOptionsSchema>

export interface SdkConfig {
  endpoint: string
  tracesUrl: string
  feedbackUrl: string
  headers: Record<string, string>
  protocol: 'http/protobuf' | 'http/json'
  compression: 'gzip' | 'none'
  serviceName: string
  serviceVersion?: string
  environment?: string
  agentVersion?: string
  promptVersion?: string
  resourceAttributes: Record<string, string | number | boolean>
  captureContent: boolean
  redact?: Redact
  maxContentLength: number
  maxQueueSize: number
  maxExportBatchSize: number
  scheduledDelayMillis: number
  exportTimeoutMillis: number
  disabled: boolean
  exporter?: SpanExporter
}

export class SdkConfigError extends Error {
  readonly code = 'SIEVE_SDK_CONFIG_INVALID'
  constructor(readonly problems: string[]) {
    super(`Invalid Sieve SDK configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
  }
}

/** Environment variable (first one set wins) for each option. */
const ENV: Partial<Record<keyof SdkOptions, string[]>> = {
  endpoint: ['SIEVE_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'],
  tracesEndpoint: ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'],
  apiKey: ['SIEVE_API_KEY'],
  headers: ['OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'OTEL_EXPORTER_OTLP_HEADERS'],
  protocol: ['OTEL_EXPORTER_OTLP_TRACES_PROTOCOL', 'OTEL_EXPORTER_OTLP_PROTOCOL'],
  compression: ['OTEL_EXPORTER_OTLP_TRACES_COMPRESSION', 'OTEL_EXPORTER_OTLP_COMPRESSION'],
  serviceName: ['SIEVE_SERVICE_NAME', 'OTEL_SERVICE_NAME'],
  serviceVersion: ['SIEVE_SERVICE_VERSION'],
  environment: ['SIEVE_ENVIRONMENT'],
  agentVersion: ['SIEVE_AGENT_VERSION'],
  promptVersion: ['SIEVE_PROMPT_VERSION'],
  captureContent: ['SIEVE_CAPTURE_CONTENT', 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT'],
  maxContentLength: ['SIEVE_MAX_CONTENT_LENGTH'],
  maxQueueSize: ['SIEVE_MAX_QUEUE_SIZE', 'OTEL_BSP_MAX_QUEUE_SIZE'],
  maxExportBatchSize: ['OTEL_BSP_MAX_EXPORT_BATCH_SIZE'],
  scheduledDelayMillis: ['OTEL_BSP_SCHEDULE_DELAY'],
  exportTimeoutMillis: ['OTEL_EXPORTER_OTLP_TRACES_TIMEOUT', 'OTEL_EXPORTER_OTLP_TIMEOUT'],
  disabled: ['SIEVE_DISABLED', 'OTEL_SDK_DISABLED'],
}

export function resolveConfig(options: SdkOptions = {}, env: Record<string, string | undefined> = process.env): SdkConfig {
  const merged: Record<string, unknown> = {}
  const source: Record<string, string> = {}
  for (const [key, names] of Object.entries(ENV)) {
    const name = names.find((n) => env[n] !== undefined && env[n] !== '')
    if (name) {
      merged[key] = env[name]!.trim()
      source[key] = name
    }
  }
  // OpenTelemetry shops often set gRPC for every exporter; Sieve's collector speaks OTLP/HTTP only.
  if (merged.protocol === 'grpc' && source.protocol !== undefined && !('protocol' in options && options.protocol !== undefined)) {
    warnOnce(
      'grpc',
      `${source.protocol}=grpc: Sieve receives OTLP over HTTP, so its spans go as http/protobuf (set OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf to silence this)`,
    )
    delete merged.protocol
  }
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) {
      merged[key] = value
      source[key] = `init({ ${key} })`
    }
  }
  const parsed = sdkOptionsSchema.safeParse(merged)
  if (!parsed.success) {
    throw new SdkConfigError(
      parsed.error.issues.map((issue) => {
        const key = String(issue.path[0] ?? '')
        return `${source[key] ?? key}: ${issue.message}`
      }),
    )
  }
  const o = parsed.data
  const endpoint = (o.endpoint ?? 'http://localhost:4318').replace(/\/+$/, '')
  const headers: Record<string, string> = { ...o.headers }
  if (o.apiKey) headers.authorization = `Bearer ${o.apiKey}`
  const maxQueueSize = o.maxQueueSize ?? 2048
  return {
    endpoint,
    tracesUrl: o.tracesEndpoint ?? `${endpoint}/v1/traces`,
    feedbackUrl: `${endpoint}/v1/feedback`,
    headers,
    protocol: o.protocol ?? 'http/protobuf',
    compression: o.compression ?? 'gzip',
    serviceName: o.serviceName ?? resourceServiceName(env.OTEL_RESOURCE_ATTRIBUTES) ?? 'unknown_service:node',
    serviceVersion: o.serviceVersion,
    environment: o.environment,
    agentVersion: o.agentVersion,
    promptVersion: o.promptVersion,
    resourceAttributes: o.resourceAttributes ?? {},
    // Content is opt-in, as the GenAI conventions ask: prompts and answers may hold what users typed.
    captureContent: o.captureContent ?? false,
    redact: o.redact,
    maxContentLength: o.maxContentLength ?? 32_768,
    maxQueueSize,
    maxExportBatchSize: Math.min(o.maxExportBatchSize ?? 512, maxQueueSize),
    scheduledDelayMillis: o.scheduledDelayMillis ?? 1000,
    exportTimeoutMillis: o.exportTimeoutMillis ?? 10_000,
    disabled: o.disabled ?? false,
    exporter: o.exporter,
  }
}

/** `service.name` from OTEL_RESOURCE_ATTRIBUTES (`k=v,k2=v2`, values percent-encoded), when it is there. */
function resourceServiceName(attributes: string | undefined): string | undefined {
  for (const pair of (attributes ?? '').split(',')) {
    const at = pair.indexOf('=')
    if (at < 0 || pair.slice(0, at).trim() !== 'service.name') continue
    try {
      const value = decodeURIComponent(pair.slice(at + 1).trim())
      if (value) return value
    } catch {
      return undefined
    }
  }
  return undefined
}
