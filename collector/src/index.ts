export * from './otlp/index.js'
export * from './receiver/index.js'
export { createMetrics, type CollectorMetrics } from './metrics.js'
