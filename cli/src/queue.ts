import type { Config, Logger, SpanQueue } from '@sieve/core'
import { InProcessQueue, openKafkaQueue } from '@sieve/queue'
import type { PipelineMetrics } from '@sieve/metrics'

/** The one place that picks the queue: Kafka when KAFKA_BROKERS is set, in-process otherwise. */
export async function openQueue(config: Config, metrics: PipelineMetrics, role: string, log: Logger): Promise<SpanQueue> {
  if (config.kafka) return openKafkaQueue({ kafka: config.kafka, metrics, logLevel: config.logLevel })
  return new InProcessQueue({
    maxWaitMs: config.maxQueueWaitMs,
    capacity: config.maxQueueSpans,
    onError: (group, error, attempt) =>
      log.warn(`sieve ${role}: ${group} failed to handle a batch (attempt ${attempt}): ${(error as Error).message}`, { group, attempt }),
  })
}
