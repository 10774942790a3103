export * from './otlp/index.js'
export * from './receiver/index.js'
export { createMetrics, type CollectorMetrics } from './metrics.js'
export * from './queue/in-process-queue.js'
export * from './api/require-project.js'
export * from './api/security-headers.js'
export * from './api/query-params.js'
export * from './api/json-errors.js'
export * from './api/storage-readiness.js'
export * from './api/request-id.js'
export * from './api/trace-routes.js'
export * from './api/trace-tree.js'
export * from './app.js'
export * from './server.js'
export * from './feedback/feedback-routes.js'
export * from './feedback/feedback-rows.js'
// The body /v1/feedback validates: the SDK's, which sends it (one schema for both ends).
export { feedbackSchema } from '@sieve/protocol'
export { listTracesQuerySchema, traceIdSchema } from './api/trace-query.js'
export { KafkaSpanQueue, openKafkaQueue, type KafkaQueueOptions, type KafkaSettings } from './queue/kafka-queue.js'
export { KafkaSetupError } from './queue/kafka-topics.js'
export { openKafkaTopicWriter, type KafkaTopicWriter, type KafkaTopicWriterOptions } from './queue/kafka-topic-writer.js'
export { forwardsProtobuf, type ForwardingQueue } from './queue/forwarding-queue.js'
export {
  encodeSpanRecord,
  encodeSpanRecords,
  encodeTraceRecords,
  decodeSpanRecords,
  SpanRecordError,
  JSON_SPAN_RECORD,
  OTLP_TRACE_RECORD,
  MAX_TRACE_RECORD_BYTES,
  type SpanRecord,
} from './queue/span-record.js'
