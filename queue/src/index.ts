export { InProcessQueue, type InProcessQueueOptions } from './in-process-queue.js'
export { KafkaSpanQueue, openKafkaQueue, type KafkaQueueOptions, type KafkaSettings } from './kafka-queue.js'
export { KafkaSetupError } from './kafka-topics.js'
export { openKafkaTopicWriter, type KafkaTopicWriter, type KafkaTopicWriterOptions } from './kafka-topic-writer.js'
export { forwardingOf, type ForwardingQueue } from './forwarding-queue.js'
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
} from './span-record.js'
