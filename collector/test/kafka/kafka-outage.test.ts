import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { QueueUnavailableError, type Span } from '@sieve/core'
import { createPipelineMetrics } from '@sieve/metrics'
import { openKafkaQueue, type KafkaSpanQueue } from '@sieve/queue'
import { countRows, makeTraces, startPrivateBroker, until, type PrivateBroker } from '@sieve/testkit'
import { startKafkaStack } from '@sieve/testkit/kafka-stack'
import { otelSpans } from '@sieve/testkit/otlp'
import { ExportResultCode } from '@opentelemetry/core'
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto'

let broker: PrivateBroker
before(async () => {
  broker = await startPrivateBroker()
})
after(async () => {
  await broker?.destroy()
})

test('with the broker gone publish fails with QueueUnavailableError instead of hanging, and recovers when it is back', async () => {
  const metrics = createPipelineMetrics()
  const queue: KafkaSpanQueue = await openKafkaQueue({
    kafka: {
      brokers: broker.brokers,
      clientId: 'outage-test',
      spansTopic: 'sieve.spans',
      scoresTopic: 'sieve.scores',
      deadLetterTopic: 'sieve.spans.dead-letter',
      partitions: 2,
      replicationFactor: 1,
      sessionTimeoutMs: 10_000,
    },
    metrics,
    publish: { timeoutMs: 3000, failFastMs: 500 },
  })
  const accepted: Span[] = []
  const first = makeTraces(10, 3)
  await queue.publish(first)
  accepted.push(...first)

  await broker.stop()
  const refused = await queue.publish(makeTraces(1, 3)).then(
    () => undefined,
    (e: unknown) => e,
  )
  assert.ok(refused instanceof QueueUnavailableError, `expected QueueUnavailableError, got ${String(refused)}`)
  assert.ok(refused.retryAfterSeconds >= 1)

  await broker.start()
  // The first attempts after the restart may still meet the old connections; each is answered, none hangs.
  let recovered = false
  for (let attempt = 0; attempt < 120 && !recovered; attempt++) {
    const spans = makeTraces(2, 3)
    try {
      await queue.publish(spans)
      accepted.push(...spans)
      recovered = true
    } catch (err) {
      assert.ok(err instanceof QueueUnavailableError, String(err))
      await new Promise((r) => setTimeout(r, 500))
    }
  }
  assert.ok(recovered, 'publish works again after the broker is back')

  const seen = new Set<string>()
  const sub = await queue.subscribe({ group: 'check', onBatch: async (b) => b.forEach((q) => seen.add(q.span.spanId)) })
  const deadline = Date.now() + 60_000
  while (accepted.some((s) => !seen.has(s.spanId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  await sub.close()
  await queue.close()
  assert.deepEqual(
    accepted.filter((s) => !seen.has(s.spanId)),
    [],
    'every acknowledged span is on the topic',
  )
  const failures = await metrics.kafkaProduceFailures.get()
  assert.ok(failures.values[0]!.value >= 1)
})

test('broker outage while an OpenTelemetry exporter sends: 503 meanwhile, its retries complete, nothing accepted is lost', async () => {
  const stack = await startKafkaStack(broker.brokers)
  // Users raise OTEL_EXPORTER_OTLP_TIMEOUT for the same reason: retries must outlast a broker restart.
  const exporter = new OTLPTraceExporter({ url: stack.url, timeoutMillis: 60_000 })
  type Phase = 'before' | 'outage' | 'after'
  const now = { phase: 'before' as Phase }
  let sending = true
  const accepted: string[] = []
  const results: { startedIn: Phase; ok: boolean }[] = []
  const sender = (async () => {
    while (sending) {
      const spans = await otelSpans()
      const startedIn = now.phase
      const result = await new Promise<{ code: ExportResultCode }>((resolve) => exporter.export(spans, resolve))
      const ok = result.code === ExportResultCode.SUCCESS
      results.push({ startedIn, ok })
      if (ok) accepted.push(...spans.map((s) => s.spanContext().spanId))
      await new Promise((r) => setTimeout(r, 100))
    }
  })()
  const unavailable = async () =>
    (await stack.metrics.spansRejected.get()).values.filter((v) => v.labels.reason === 'queue_unavailable').reduce((n, v) => n + v.value, 0)

  try {
    await until('exports before the outage', () => accepted.length >= 9)
    now.phase = 'outage'
    await broker.stop()
    await until('a 503 from the collector', async () => (await unavailable()) > 0)
    await broker.start()
    now.phase = 'after'
    await until('an export begun after the restart to succeed', () => results.some((r) => r.startedIn === 'after' && r.ok), 120_000)
  } finally {
    sending = false
    await sender
    await exporter.shutdown()
  }
  assert.ok(
    results.some((r) => r.startedIn === 'outage' && r.ok),
    `an export begun during the outage completed through its retries: ${JSON.stringify(results)}`,
  )
  const ids = accepted.map((id) => `'${id}'`).join(',')
  await until(
    'every accepted span stored',
    async () => (await countRows(stack.storage, `SELECT count() FROM spans FINAL WHERE span_id IN (${ids})`)) === accepted.length,
  )
  await stack.close()
})
