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
  assert.deepEqual(pipelineCounters(await registry.metrics()), [
    { name: 'sieve_spans_received_total', help: 'Spans received.', value: 10, problem: false },
    { name: 'sieve_spans_rejected_total', help: 'Spans rejected.', value: 5, problem: true },
  ])
})
