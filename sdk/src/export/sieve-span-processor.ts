import type { Context } from '@opentelemetry/api'
import { TraceFlags } from '@opentelemetry/api'
import { ExportResultCode, type ExportResult } from '@opentelemetry/core'
import { BatchSpanProcessor, type ReadableSpan, type Span, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base'
import { warnOnce } from '../log.js'

export interface ExportStats {
  /** Spans handed to the exporter that the collector accepted. */
  exported: number
  /** Spans dropped because the queue was full. */
  dropped: number
  /** Spans lost because an export failed after the exporter's own retries. */
  failed: number
  /** Spans waiting in the queue or in an export in flight. */
  pending: number
}

export interface SieveSpanProcessorOptions {
  exporter: SpanExporter
  maxQueueSize: number
  maxExportBatchSize: number
  scheduledDelayMillis: number
  exportTimeoutMillis: number
  /** Named in the log line when exports fail. */
  destination: string
}

/**
 * A batch span processor that can never hurt the host: its queue is bounded (overflow is dropped,
 * counted and logged once), export failures are counted and logged once, and flush/shutdown never
 * reject. Apps with their own OpenTelemetry setup add it to their provider's span processors.
 */
export class SieveSpanProcessor implements SpanProcessor {
  readonly stats: ExportStats = { exported: 0, dropped: 0, failed: 0, pending: 0 }
  private readonly batch: BatchSpanProcessor
  private readonly maxQueueSize: number
  private closed = false
  /** The flush running or last run; the next one starts after it. */
  private flushing: Promise<void> = Promise.resolve()
  /** A flush waiting for the running one: later callers share it. */
  private nextFlush: Promise<void> | undefined

  constructor(private readonly options: SieveSpanProcessorOptions) {
    this.maxQueueSize = options.maxQueueSize
    const exporter = options.exporter
    const settle = (count: number, result: ExportResult) => {
      this.stats.pending = Math.max(0, this.stats.pending - count)
      if (result.code === ExportResultCode.SUCCESS) {
        this.stats.exported += count
        return
      }
      this.stats.failed += count
      warnOnce(
        'export-failed',
        `could not send spans to ${options.destination} (${result.error?.message ?? 'export failed'}); ` +
          'spans are dropped while this lasts, the application is not affected',
      )
    }
    const counted: SpanExporter = {
      export(spans, done) {
        try {
          exporter.export(spans, (result) => {
            settle(spans.length, result)
            done(result)
          })
        } catch (error) {
          const result = { code: ExportResultCode.FAILED, error: error as Error }
          settle(spans.length, result)
          done(result)
        }
      },
      shutdown: () => exporter.shutdown().catch(() => undefined),
      forceFlush: () => exporter.forceFlush?.().catch(() => undefined) ?? Promise.resolve(),
    }
    // The inner queue is one larger than ours so that it never drops on its own: we count first.
    this.batch = new BatchSpanProcessor(counted, {
      maxQueueSize: options.maxQueueSize + 1,
      maxExportBatchSize: options.maxExportBatchSize,
      scheduledDelayMillis: options.scheduledDelayMillis,
      exportTimeoutMillis: options.exportTimeoutMillis,
    })
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.closed || (span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return
    if (this.stats.pending >= this.maxQueueSize) {
      this.stats.dropped++
      warnOnce('queue-full', `span queue full (${this.maxQueueSize} spans waiting for ${this.options.destination}); new spans are dropped and counted`)
      return
    }
    this.stats.pending++
    this.batch.onEnd(span)
  }

  /**
   * One flush at a time. A server that flushes before each answer flushes once per request, and
   * the OTLP exporter refuses exports past its limit in flight: a flush asked for while one runs
   * waits for it, then sends, in one export, what every caller meanwhile added.
   */
  forceFlush(): Promise<void> {
    if (this.nextFlush) return this.nextFlush
    const next = this.flushing.then(() => {
      this.nextFlush = undefined
      return this.batch.forceFlush().catch(() => undefined)
    })
    this.nextFlush = next
    this.flushing = next
    return next
  }

  shutdown(): Promise<void> {
    this.closed = true
    return this.batch.shutdown().catch(() => undefined)
  }
}
