import { KAFKA_ENV, SERVER_ENV, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const ingesterCommand: Command = {
  name: 'ingester',
  summary: 'Run only the ingester: a Kafka consumer group member storing spans in ClickHouse; run as many as partitions',
  options: {},
  details: [
    'Needs KAFKA_BROKERS. Reads the spans topic, stores spans in ClickHouse (embedded in SIEVE_DATA_DIR/clickhouse, ' +
      'or CLICKHOUSE_URL) and keeps the traces rollup current; serves /healthz, /readyz and /metrics on SIEVE_PORT.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...SERVER_ENV, ...KAFKA_ENV, ...STORAGE_ENV],
  exitCodes: {
    0: 'stopped by SIGINT/SIGTERM',
    1: 'storage or Kafka could not be reached at start',
    2: 'configuration or start-up error, found before storage is opened: an invalid setting, KAFKA_BROKERS unset, a non-loopback SIEVE_HOST without SIEVE_API_KEYS, SIEVE_PORT taken',
  },
  async run() {
    const [{ ingesterPart, opsPart }, { serve }] = await Promise.all([import('../parts.js'), import('../serve.js')])
    return serve({ name: 'ingester', parts: [ingesterPart, opsPart], migrate: false, needsKafka: true })
  },
}
