import type { Config, Logger, SpanQueue, Storage } from '@sieve/core'
import { InProcessQueue, openKafkaQueue } from '@sieve/queue'
import { INGESTER_GROUP, storeDeadLetters } from '@sieve/ingester'
import type { PipelineMetrics } from '@sieve/metrics'

/**
 * The one place that picks the queue: Kafka when KAFKA_BROKERS is set, in-process otherwise. The
 * embedded one keeps spans in memory only, so it is built to make them durable as the ingester
 * stores them: a publish waits for the ingester's group, and spans storage refuses go to
 * `dead_letters` (Kafka has its acknowledgements and its dead-letter topic).
 */
export async function openQueue(config: Config, metrics: PipelineMetrics, role: string, log: Logger, storage: Storage): Promise<SpanQueue> {
  if (config.kafka) return openKafkaQueue({ kafka: config.kafka, metrics, logLevel: config.logLevel })
  return new InProcessQueue({
    gates: [INGESTER_GROUP],
    deadLetters: storeDeadLetters(storage, metrics),
    maxWaitMs: config.maxQueueWaitMs,
    capacity: config.maxQueueSpans,
    capacityBytes: config.maxQueueBytes,
    onError: (group, error, attempt) =>
      log.warn(`sieve ${role}: ${group} failed to handle a batch (attempt ${attempt}): ${(error as Error).message}`, { group, attempt }),
  })
}
