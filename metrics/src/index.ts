export { type PipelineMetrics, countedInsert, createPipelineMetrics } from './pipeline-metrics.js'
