import type { Command } from '../command.js'
import { collectorPart } from '../parts.js'
import { serve } from '../serve.js'

export const collectorCommand: Command = {
  name: 'collector',
  summary: 'Run only the OTLP/HTTP collector (and read API), producing to Kafka; run as many as needed',
  usage: 'sieve collector   (needs KAFKA_BROKERS)',
  options: {},
  run: () => serve({ name: 'collector', parts: [collectorPart], migrate: false, needsKafka: true }),
}
