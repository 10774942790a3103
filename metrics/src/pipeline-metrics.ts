import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'

/**
 * The collector's Prometheus metrics, all in one registry per process (served at `/metrics`).
 * Every part of the collector records through these handles; none creates metrics of its own.
 */
export interface PipelineMetrics {
  registry: Registry
  /** Spans that arrived in a decodable request, whatever became of them. */
  spansReceived: Counter<'project'>
  /** Spans the queue took (acknowledged to the sender). */
  spansAccepted: Counter<'project'>
  /**
   * Spans refused: `invalid` (failed validation), `quarantined` (storage refused them; kept as
   * dead letters), `queue_full`, `queue_unavailable`.
   */
  spansRejected: Counter<'project' | 'reason'>
  /** Spans written to the `dead_letters` table (embedded queue), by project. */
  deadLetters: Counter<'project'>
  /** OTLP log records in decodable `/v1/logs` requests: `kept` (GenAI events of spans, stored) or `rejected`. */
  logRecords: Counter<'project' | 'outcome'>
  /** Time from request to response on `/v1/traces`, by HTTP status. */
  requestDuration: Histogram<'status'>
  /**
   * `/v1/traces` requests answered 429 before their body was read or decoded: `queue_full`,
   * `queue_wait` (the oldest queued span waited too long), `bytes_in_flight`.
   */
  requestsShed: Counter<'reason'>
  /** Spans published but not yet stored, as the queue reports it. */
  queueDepth: Gauge
  queueBytes: Gauge
  /** Time one ClickHouse insert takes, by table. */
  insertDuration: Histogram<'table'>
  /** Rows written by ClickHouse inserts, by table. */
  insertRows: Counter<'table'>
  /** Kafka queue: spans the brokers acknowledged. */
  kafkaProducedSpans: Counter
  /** Kafka queue: publish() calls that failed or timed out (answered 503). */
  kafkaProduceFailures: Counter
  /** Kafka queue: spans a consumer group handled and committed. */
  kafkaHandledSpans: Counter<'group'>
  /** Kafka queue: records moved to the dead-letter topic. */
  kafkaDeadLetters: Counter<'group'>
  /** Kafka queue: batches that failed and were retried after a pause. */
  kafkaBatchFailures: Counter<'group'>
  /** Kafka queue: records after the last one the group handled, per partition. */
  kafkaConsumerLag: Gauge<'group' | 'partition'>
  kafkaReplayedSpans: Counter
}

export function createPipelineMetrics(): PipelineMetrics {
  const registry = new Registry()
  // The event-loop monitor wakes the loop at its resolution: 10 ms made an idle process spend about
  // 1 ms of CPU a second on it (bench:idle). Its figure is the longest gap between two beats: a
  // stall of s seconds reads s to s + 0.1 at 100 ms.
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 100 })
  // prom-client's nodejs_eventloop_lag_max_seconds restarts at each scrape, and a scrape that times
  // out during a stall still restarts it: the longest stall since start survives any scrape. Kept
  // from prom-client's figure, which its collect sets just before (it is registered first) rather
  // than by a monitor of its own, whose wake-ups an idle process would pay for twice.
  const sinceScrape = registry.getSingleMetric('nodejs_eventloop_lag_max_seconds') as Gauge | undefined
  if (!sinceScrape) throw new Error("prom-client's default metrics no longer include nodejs_eventloop_lag_max_seconds")
  let longest = 0
  new Gauge({
    name: 'sieve_event_loop_delay_max_seconds',
    help: "Longest delay of the main thread's event loop since the process started (a stall: a long synchronous task or GC pause)",
    registers: [registry],
    async collect() {
      longest = Math.max(longest, (await sinceScrape.get()).values[0]?.value ?? 0)
      this.set(longest)
    },
  })
  return {
    registry,
    spansReceived: new Counter({
      name: 'sieve_spans_received_total',
      help: 'Spans received in decodable OTLP requests',
      labelNames: ['project'],
      registers: [registry],
    }),
    spansAccepted: new Counter({
      name: 'sieve_spans_accepted_total',
      help: 'Spans accepted into the queue and acknowledged to the sender',
      labelNames: ['project'],
      registers: [registry],
    }),
    spansRejected: new Counter({
      name: 'sieve_spans_rejected_total',
      help: 'Spans refused, by reason (invalid, quarantined, queue_full, queue_unavailable)',
      labelNames: ['project', 'reason'],
      registers: [registry],
    }),
    deadLetters: new Counter({
      name: 'sieve_dead_letter_spans_total',
      help: 'Spans storage refused, written to the dead_letters table, by project',
      labelNames: ['project'],
      registers: [registry],
    }),
    logRecords: new Counter({
      name: 'sieve_log_records_total',
      help: 'OTLP log records received on /v1/logs: kept (GenAI events of spans, stored) or rejected',
      labelNames: ['project', 'outcome'],
      registers: [registry],
    }),
    requestDuration: new Histogram({
      name: 'sieve_otlp_request_duration_seconds',
      help: 'OTLP/HTTP export request latency, by response status',
      labelNames: ['status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    requestsShed: new Counter({
      name: 'sieve_otlp_requests_shed_total',
      help: 'OTLP trace and log requests answered 429 before their body was read or decoded, by reason (queue_full, queue_wait, bytes_in_flight)',
      labelNames: ['reason'],
      registers: [registry],
    }),
    queueDepth: new Gauge({
      name: 'sieve_queue_depth_spans',
      help: 'Spans published to the queue and not yet stored',
      registers: [registry],
    }),
    queueBytes: new Gauge({
      name: 'sieve_queue_bytes',
      help: 'What the spans in the queue came in (their share of the request bodies), bounded by SIEVE_MAX_QUEUE_BYTES',
      registers: [registry],
    }),
    insertDuration: new Histogram({
      name: 'sieve_insert_duration_seconds',
      help: 'ClickHouse insert latency, by table',
      labelNames: ['table'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    insertRows: new Counter({
      name: 'sieve_insert_rows_total',
      help: 'Rows written to ClickHouse, by table',
      labelNames: ['table'],
      registers: [registry],
    }),
    kafkaProducedSpans: new Counter({
      name: 'sieve_kafka_produced_spans_total',
      help: 'Spans the Kafka brokers acknowledged',
      registers: [registry],
    }),
    kafkaProduceFailures: new Counter({
      name: 'sieve_kafka_produce_failures_total',
      help: 'Publishes to Kafka that failed or timed out (the sender got 503)',
      registers: [registry],
    }),
    kafkaHandledSpans: new Counter({
      name: 'sieve_kafka_handled_spans_total',
      help: 'Spans a consumer group handled (e.g. stored) and committed',
      labelNames: ['group'],
      registers: [registry],
    }),
    kafkaDeadLetters: new Counter({
      name: 'sieve_kafka_dead_letter_records_total',
      help: 'Records moved to the dead-letter topic',
      labelNames: ['group'],
      registers: [registry],
    }),
    kafkaBatchFailures: new Counter({
      name: 'sieve_kafka_batch_failures_total',
      help: 'Batches a consumer could not handle now (partition paused, retried after a back-off)',
      labelNames: ['group'],
      registers: [registry],
    }),
    kafkaConsumerLag: new Gauge({
      name: 'sieve_kafka_consumer_lag',
      help: 'Records on the partition after the last one the group handled',
      labelNames: ['group', 'partition'],
      registers: [registry],
    }),
    kafkaReplayedSpans: new Counter({
      name: 'sieve_kafka_replayed_spans_total',
      help: 'Spans handed over again after a restart, failure or rebalance and found already stored (not inserted again)',
      registers: [registry],
    }),
  }
}

/**
 * Runs one insert of `rows` rows into `table` and, once it has succeeded, counts it in
 * `sieve_insert_duration_seconds` and `sieve_insert_rows_total` under that table: every writer
 * (spans, scores, GenAI log events) is measured the same way.
 */
export async function countedInsert(
  metrics: Pick<PipelineMetrics, 'insertDuration' | 'insertRows'> | undefined,
  table: string,
  rows: number,
  insert: () => Promise<void>,
): Promise<void> {
  const stopTimer = metrics?.insertDuration.startTimer({ table })
  await insert()
  stopTimer?.()
  metrics?.insertRows.inc({ table }, rows)
}
