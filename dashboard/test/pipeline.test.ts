import { test } from 'node:test'
import assert from 'node:assert/strict'
import { Counter, Gauge, Registry } from 'prom-client'
import { pipelineCounters } from '../src/index.js'

test('pipeline health sums the counters of lost and handled spans over their labels', async () => {
  const registry = new Registry()
  const rejected = new Counter({ name: 'sieve_spans_rejected_total', help: 'Spans rejected.', labelNames: ['project', 'reason'], registers: [registry] })
  const received = new Counter({ name: 'sieve_spans_received_total', help: 'Spans received.', labelNames: ['project'], registers: [registry] })
  new Gauge({ name: 'sieve_queue_depth_spans', help: 'Queue depth.', registers: [registry] }).set(7)
  new Counter({ name: 'sieve_unrelated_total', help: 'Other.', registers: [registry] }).inc(3)
  rejected.inc({ project: 'a', reason: 'bad_trace_id' }, 2)
  rejected.inc({ project: 'b', reason: 'missing_time' }, 3)
  received.inc({ project: 'a' }, 10)
  assert.deepEqual(pipelineCounters(await registry.getMetricsAsJSON()), [
    { name: 'sieve_spans_received_total', label: 'Spans received', help: 'Spans received.', value: 10, problem: false },
    { name: 'sieve_spans_rejected_total', label: 'Spans rejected', help: 'Spans rejected.', value: 5, problem: true },
  ])
})

test("the judge's skipped traces are shown per reason: a trace with nothing to judge is told apart from a spent budget", async () => {
  const registry = new Registry()
  const skipped = new Counter({ name: 'sieve_judge_skipped_total', help: 'LLM judge: skipped.', labelNames: ['slice', 'reason'], registers: [registry] })
  skipped.inc({ slice: 'random', reason: 'no_content' }, 4)
  skipped.inc({ slice: 'new_users', reason: 'no_content' }, 1)
  skipped.inc({ slice: 'random', reason: 'calls_per_day' }, 2)
  assert.deepEqual(pipelineCounters(await registry.getMetricsAsJSON()), [
    {
      name: 'sieve_judge_skipped_total{reason="calls_per_day"}',
      label: 'Judge skipped (calls per day)',
      help: 'LLM judge: skipped.',
      value: 2,
      problem: false,
    },
    { name: 'sieve_judge_skipped_total{reason="no_content"}', label: 'Judge skipped (no content)', help: 'LLM judge: skipped.', value: 5, problem: false },
  ])
})
