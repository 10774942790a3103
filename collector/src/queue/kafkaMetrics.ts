import { Counter, Gauge, register as defaultRegistry, type Registry } from 'prom-client'

/**
 * What the Kafka queue reports to `/metrics`: produce and consume rates, failures, the
 * dead-letter count, and each consumer group's lag per partition (records on the topic not yet
 * handled). Created once per registry, since prom-client refuses a metric name twice.
 */
export interface KafkaQueueMetrics {
  producedSpans: Counter<string>
  produceFailures: Counter<string>
  handledSpans: Counter<'group'>
  deadLetters: Counter<'group'>
  batchFailures: Counter<'group'>
  consumerLag: Gauge<'group' | 'partition'>
}

const byRegistry = new WeakMap<Registry, KafkaQueueMetrics>()

export function kafkaQueueMetrics(registry: Registry = defaultRegistry): KafkaQueueMetrics {
  const existing = byRegistry.get(registry)
  if (existing) return existing
  const registers = [registry]
  const metrics: KafkaQueueMetrics = {
    producedSpans: new Counter({ name: 'sieve_kafka_produced_spans_total', help: 'Spans Kafka acknowledged', registers }),
    produceFailures: new Counter({
      name: 'sieve_kafka_produce_failures_total',
      help: 'Produce requests that failed or timed out (the collector answered 503)',
      registers,
    }),
    handledSpans: new Counter({
      name: 'sieve_kafka_handled_spans_total',
      help: 'Spans a consumer group handled (e.g. inserted into ClickHouse) and committed',
      labelNames: ['group'],
      registers,
    }),
    deadLetters: new Counter({
      name: 'sieve_kafka_dead_letter_records_total',
      help: 'Records moved to the dead-letter topic',
      labelNames: ['group'],
      registers,
    }),
    batchFailures: new Counter({
      name: 'sieve_kafka_batch_failures_total',
      help: 'Batches a consumer could not handle now (paused, retried after a back-off)',
      labelNames: ['group'],
      registers,
    }),
    consumerLag: new Gauge({
      name: 'sieve_kafka_consumer_lag',
      help: 'Records on the partition after the last one the group handled',
      labelNames: ['group', 'partition'],
      registers,
    }),
  }
  byRegistry.set(registry, metrics)
  return metrics
}
