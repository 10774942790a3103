import type { Command } from '../command.js'
import { ingesterPart, opsPart } from '../parts.js'
import { serve } from '../serve.js'

export const ingesterCommand: Command = {
  name: 'ingester',
  summary: 'Run only the ingester: a Kafka consumer group member storing spans in ClickHouse; run as many as partitions',
  usage: 'sieve ingester   (needs KAFKA_BROKERS; serves /healthz, /readyz, /metrics on SIEVE_PORT)',
  options: {},
  run: () => serve({ name: 'ingester', parts: [ingesterPart, opsPart], migrate: false, needsKafka: true }),
}
