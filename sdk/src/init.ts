import { context, propagation, trace, type ProxyTracerProvider } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core'
import { AlwaysOnSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base'
import { resolveConfig, SdkConfigError, type SdkConfig, type SdkOptions } from './config.js'
import { createOtlpExporter } from './export/otlp-exporter.js'
import { SieveSpanProcessor, type ExportStats } from './export/sieve-span-processor.js'
import { warnOnce } from './log.js'
import { buildResource } from './resource.js'
import { defaultPolicy, state } from './state.js'
import { SDK_NAME, SDK_VERSION } from './version.js'

export type InitResult =
  /** `global`: Sieve set up OpenTelemetry for the process; `alongside`: the app had, Sieve exports its own spans next to it. */
  { ok: true; mode: 'global' | 'alongside' | 'disabled' } | { ok: false; mode: 'disabled'; error: SdkConfigError }

let mode: 'global' | 'alongside' | 'disabled' | undefined

function configure(options: SdkOptions): SdkConfig {
  const config = resolveConfig(options)
  state.config = config
  state.policy = { capture: config.captureContent, redact: config.redact, maxLength: config.maxContentLength }
  return config
}

function processorFor(config: SdkConfig): SieveSpanProcessor {
  return new SieveSpanProcessor({
    exporter: config.exporter ?? createOtlpExporter(config),
    maxQueueSize: config.maxQueueSize,
    maxExportBatchSize: config.maxExportBatchSize,
    scheduledDelayMillis: config.scheduledDelayMillis,
    exportTimeoutMillis: config.exportTimeoutMillis,
    destination: config.exporter ? 'the configured exporter' : config.tracesUrl,
  })
}

/** True when the app already registered a tracer provider of its own. */
function appHasTracerProvider(): boolean {
  const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate?.()
  return delegate !== undefined && delegate.constructor?.name !== 'NoopTracerProvider'
}

/**
 * Starts tracing to Sieve. Never throws: an invalid setting is logged once and leaves tracing off
 * (the result says why). When the app already set up OpenTelemetry, Sieve keeps its own provider
 * for its spans instead of replacing the app's; they still join the app's traces.
 */
export function init(options: SdkOptions = {}): InitResult {
  if (mode) {
    warnOnce('init-twice', 'init() was called again; the first configuration stays in effect (call shutdown() first to change it)')
    return { ok: true, mode }
  }
  let config: SdkConfig
  try {
    config = configure(options)
  } catch (err) {
    const error = err instanceof SdkConfigError ? err : new SdkConfigError([(err as Error)?.message ?? String(err)])
    warnOnce('config', `${error.message}\nTracing to Sieve is off.`)
    return { ok: false, mode: 'disabled', error }
  }
  if (config.disabled) return { ok: true, mode: (mode = 'disabled') }

  const processor = processorFor(config)
  const resource = buildResource(config)
  state.processor = processor
  if (appHasTracerProvider()) {
    const provider = new BasicTracerProvider({ resource, spanProcessors: [processor], sampler: new AlwaysOnSampler() })
    const contextManager = new AsyncLocalStorageContextManager().enable()
    if (!context.setGlobalContextManager(contextManager)) contextManager.disable()
    state.tracer = provider.getTracer(SDK_NAME, SDK_VERSION)
    state.stop = () => provider.shutdown()
    return { ok: true, mode: (mode = 'alongside') }
  }
  // A tracer provider, the async context and W3C propagation: what an agent needs, without
  // sdk-node's metrics, logs, gRPC and Zipkin packages.
  const provider = new BasicTracerProvider({ resource, spanProcessors: [processor], sampler: new AlwaysOnSampler() })
  const contextManager = new AsyncLocalStorageContextManager().enable()
  context.setGlobalContextManager(contextManager)
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }))
  trace.setGlobalTracerProvider(provider)
  state.tracer = provider.getTracer(SDK_NAME, SDK_VERSION)
  state.stop = async () => {
    await provider.shutdown()
    trace.disable()
    context.disable()
    propagation.disable()
  }
  return { ok: true, mode: (mode = 'global') }
}

/**
 * For apps that build their own OpenTelemetry provider: a span processor sending to Sieve, to add
 * to its `spanProcessors`. Reads the same options as init (content capture, redaction included).
 */
export function createSieveSpanProcessor(options: SdkOptions = {}): SieveSpanProcessor {
  const processor = processorFor(configure(options))
  state.processor = processor
  return processor
}

function bounded(work: Promise<unknown>, ms: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms)
    timer.unref?.()
    const settle = () => {
      clearTimeout(timer)
      resolve()
    }
    work.then(settle, settle)
  })
}

/** Sends the spans waiting in the queue (serverless: before the function returns). Never rejects. */
export function flush(timeoutMs = 5_000): Promise<void> {
  return state.processor ? bounded(state.processor.forceFlush(), timeoutMs) : Promise.resolve()
}

/** Flushes and stops; `init` may be called again afterwards. Never rejects. */
export async function shutdown(timeoutMs = 5_000): Promise<void> {
  const stop = state.stop
  const processor = state.processor
  mode = undefined
  state.stop = undefined
  state.processor = undefined
  state.config = undefined
  state.policy = defaultPolicy()
  state.tracer = trace.getTracer(SDK_NAME, SDK_VERSION)
  await bounded(stop ? stop() : (processor?.shutdown() ?? Promise.resolve()), timeoutMs)
  state.tracer = trace.getTracer(SDK_NAME, SDK_VERSION)
}

/** Export counters since init: exported, dropped (queue full), failed (export errors), pending. */
export function exportStats(): ExportStats {
  return { ...(state.processor?.stats ?? { exported: 0, dropped: 0, failed: 0, pending: 0 }) }
}
