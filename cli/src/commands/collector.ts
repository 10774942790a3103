import { KAFKA_ENV, SERVER_ENV, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const collectorCommand: Command = {
  name: 'collector',
  summary: 'Run only the OTLP/HTTP collector (and read API), producing to Kafka; run as many as needed',
  options: {},
  details: [
    'Needs KAFKA_BROKERS. Accepts OTLP/HTTP on SIEVE_HOST:SIEVE_PORT (/v1/traces, /v1/logs for GenAI events, /v1/feedback), answers ' +
      'once Kafka has the spans, and serves the read API, the dashboard and /metrics from the ClickHouse the ' +
      'ingesters write to. Migrations are left to `sieve migrate`.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...SERVER_ENV, 'SIEVE_MAX_BODY_BYTES', 'SIEVE_MAX_BYTES_IN_FLIGHT', ...KAFKA_ENV, ...STORAGE_ENV],
  exitCodes: {
    0: 'stopped by SIGINT/SIGTERM',
    1: 'storage or Kafka could not be reached at start',
    2: 'configuration or start-up error, found before storage is opened: an invalid setting, an invalid judge or review section (the review queues of the dashboard read them), KAFKA_BROKERS unset, a non-loopback SIEVE_HOST without SIEVE_API_KEYS, SIEVE_PORT taken',
  },
  async run() {
    const [{ collectorPart }, { serve }] = await Promise.all([import('../parts.js'), import('../serve.js')])
    return serve({ name: 'collector', parts: [collectorPart], migrate: false, needsKafka: true })
  },
}
