import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import type { checkOutcome } from '@sieve/scoring'

/** What the scorer reports. Pass rate of a check = passed / (passed + failed) of `sieve_check_results_total`; not_measured counts traces that lacked what it reads. */
export interface ScorerMetrics {
  traceScored(complete: boolean, late: boolean, latencySeconds: number): void
  /** `n` results of `check` with `outcome` (default one). */
  checkResult(check: string, outcome: ReturnType<typeof checkOutcome>, n?: number): void
  evicted(): void
  lateSpans(n: number): void
  writeFailed(): void
  /** Traces being assembled, their spans, and what those weighed on the wire. */
  openTraces(traces: number, spans: number, bytes: number): void
  /** Spans of closed traces not yet scored and stored, and their wire bytes (the backlog `maxUnscoredSpans` and `maxUnscoredBytes` bound). */
  unscored(spans: number, bytes: number): void
  /** Traces read back from storage at start (never scored, or scored before their last span). */
  recovered(n: number): void
}

export function createScorerMetrics(registry: Registry): ScorerMetrics {
  const registers = [registry]
  const scored = new Counter({
    name: 'sieve_scored_traces_total',
    help: 'Traces scored by the deterministic checks.',
    labelNames: ['complete', 'rescore'],
    registers,
  })
  const results = new Counter({ name: 'sieve_check_results_total', help: 'Check results by check and outcome.', labelNames: ['check', 'outcome'], registers })
  const latency = new Histogram({
    name: 'sieve_scoring_latency_seconds',
    help: 'Trace end (last span end) to its scores stored.',
    buckets: [0.5, 1, 2, 3, 4, 5, 7.5, 10, 15, 30, 60, 120, 300],
    registers,
  })
  const evictions = new Counter({
    name: 'sieve_assembler_evictions_total',
    help: 'Open traces closed early as incomplete because of the memory limit.',
    registers,
  })
  const late = new Counter({
    name: 'sieve_assembler_late_spans_total',
    help: 'Spans that arrived after their trace was scored (the trace is scored again).',
    registers,
  })
  const writeFailures = new Counter({ name: 'sieve_score_write_failures_total', help: 'Score writes that failed and will be retried.', registers })
  const openTraces = new Gauge({ name: 'sieve_assembler_open_traces', help: 'Traces being assembled.', registers })
  const openSpans = new Gauge({ name: 'sieve_assembler_open_spans', help: 'Spans held by traces being assembled.', registers })
  const openBytes = new Gauge({ name: 'sieve_assembler_open_bytes', help: 'What the spans of traces being assembled weighed on the wire.', registers })
  const unscored = new Gauge({ name: 'sieve_assembler_unscored_spans', help: 'Spans of closed traces waiting to be scored and stored.', registers })
  const unscoredBytes = new Gauge({
    name: 'sieve_assembler_unscored_bytes',
    help: 'What the spans of closed traces waiting to be scored weighed on the wire.',
    registers,
  })
  const recovered = new Counter({
    name: 'sieve_scorer_recovered_traces_total',
    help: 'Unscored traces read back from storage at start (the embedded queue keeps nothing across a restart).',
    registers,
  })
  return {
    traceScored(complete, rescore, seconds) {
      scored.inc({ complete: String(complete), rescore: String(rescore) })
      latency.observe(Math.max(0, seconds))
    },
    checkResult(check, outcome, n = 1) {
      results.inc({ check, outcome }, n)
    },
    evicted() {
      evictions.inc()
    },
    lateSpans(n) {
      late.inc(n)
    },
    writeFailed() {
      writeFailures.inc()
    },
    openTraces(traces, spans, bytes) {
      openTraces.set(traces)
      openSpans.set(spans)
      openBytes.set(bytes)
    },
    unscored(spans, bytes) {
      unscored.set(spans)
      unscoredBytes.set(bytes)
    },
    recovered(n) {
      recovered.inc(n)
    },
  }
}
