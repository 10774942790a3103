export { type PipelineMetrics, countedInsert, createPipelineMetrics } from './pipeline-metrics.js'
export { registerEngineMemoryGauge } from './engine-memory-gauge.js'
