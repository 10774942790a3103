import { Counter, Histogram, type Registry } from 'prom-client'

/** What the ingester reports: stored rows and how long each batch insert took. */
export interface IngestMetrics {
  inserted(rows: number, seconds: number): void
  insertFailed(): void
}

export function createIngestMetrics(registry: Registry): IngestMetrics {
  const rows = new Counter({ name: 'sieve_stored_spans_total', help: 'Spans written to storage (a re-delivered span counts again).', registers: [registry] })
  const failures = new Counter({ name: 'sieve_insert_failures_total', help: 'Batch inserts that failed and will be retried.', registers: [registry] })
  const latency = new Histogram({
    name: 'sieve_insert_duration_seconds',
    help: 'Time to store one batch: span insert plus trace rollup rewrite.',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  })
  const batchSize = new Histogram({
    name: 'sieve_insert_batch_spans',
    help: 'Spans per batch insert (group commit size).',
    buckets: [1, 16, 64, 256, 512, 1024, 2048, 4096, 8192],
    registers: [registry],
  })
  return {
    inserted(n, seconds) {
      rows.inc(n)
      latency.observe(seconds)
      batchSize.observe(n)
    },
    insertFailed() {
      failures.inc()
    },
  }
}
