import { trace, type Tracer } from '@opentelemetry/api'
import type { ContentPolicy } from './content.js'
import type { SdkConfig } from './config.js'
import type { SieveSpanProcessor } from './export/sieve-span-processor.js'
import { SDK_NAME, SDK_VERSION } from './version.js'

/**
 * What `init` set up, read by the tracing functions. Before `init` (or when an app only adds
 * `SieveSpanProcessor` to its own provider) spans go to the global tracer provider.
 */
export interface SdkState {
  tracer: Tracer
  policy: ContentPolicy
  config?: SdkConfig
  processor?: SieveSpanProcessor
  /** Stops what init started (the NodeSDK or the private provider). */
  stop?: () => Promise<void>
}

export const defaultPolicy = (): ContentPolicy => ({ capture: true, maxLength: 32_768 })

export const state: SdkState = { tracer: trace.getTracer(SDK_NAME, SDK_VERSION), policy: defaultPolicy() }
