import type { Config, SpanQueue } from '@sieve/core'
import { InProcessQueue, openKafkaQueue, type CollectorMetrics } from '@sieve/collector'

/** The one place that picks the queue: Kafka when KAFKA_BROKERS is set, in-process otherwise. */
export async function openQueue(config: Config, metrics: CollectorMetrics, role: string): Promise<SpanQueue> {
  if (config.kafka) return openKafkaQueue({ kafka: config.kafka, metrics, logLevel: config.logLevel })
  return new InProcessQueue({
    onError: (group, error, attempt) =>
      console.error(`sieve ${role}: ${group} failed to handle a batch (attempt ${attempt}): ${(error as Error).message}`),
  })
}
