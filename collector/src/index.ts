export { KafkaSpanQueue, openKafkaQueue, type KafkaQueueOptions, type KafkaSettings } from './queue/kafkaQueue.js'
export { kafkaQueueMetrics, type KafkaQueueMetrics } from './queue/kafkaMetrics.js'
export { KafkaSetupError } from './queue/kafkaTopics.js'
export { encodeSpanRecord, decodeSpanRecord, SpanRecordError, SPAN_RECORD_VERSION } from './queue/spanRecord.js'
