import type { Command } from '../command.js'
import { opsPart, scorerPart } from '../parts.js'
import { serve } from '../serve.js'

export const scorerCommand: Command = {
  name: 'scorer',
  summary: 'Run only the scorer: its own Kafka consumer group, scores into ClickHouse and the scores topic',
  usage: 'sieve scorer   (needs KAFKA_BROKERS; serves /healthz, /readyz, /metrics on SIEVE_PORT)',
  options: {},
  run: () => serve({ name: 'scorer', parts: [scorerPart, opsPart], migrate: false, needsKafka: true }),
}
