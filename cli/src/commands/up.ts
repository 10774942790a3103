import { JUDGE_ENV, KAFKA_ENV, SERVER_ENV, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const upCommand: Command = {
  name: 'up',
  summary: 'Run Sieve on one machine: collector, ingester, scorer (+ judge), dashboard, over one queue and one storage',
  options: {},
  details: [
    'Starts, in one process: the OTLP/HTTP collector (POST /v1/traces, /v1/logs for GenAI events, /v1/feedback), the ingester, the scorer ' +
      'with the deterministic checks (and the LLM judge when JUDGE_MODEL is set), the read API (/api), the ' +
      'dashboard (/ui) and /metrics, all on SIEVE_HOST:SIEVE_PORT (127.0.0.1:4318 by default), and prints where ' +
      'to send traces. Pending migrations are applied at start.',
    'Queue: in-process, or Kafka when KAFKA_BROKERS is set. Storage: embedded ClickHouse (chDB) in ' +
      'SIEVE_DATA_DIR/clickhouse (./data/clickhouse by default, kept across restarts), or the server at ' +
      'CLICKHOUSE_URL. Datasets exported from the dashboard are appended to SIEVE_DATA_DIR/datasets/<project>/golden.jsonl.',
    'Without SIEVE_API_KEYS it listens on loopback only and everything goes to project `default`. ' +
      'SIGINT/SIGTERM drain the queue into storage (up to 30 s) and stop; traces not scored yet are read back ' +
      'from storage and scored at the next start (after a kill -9 too).',
    'On the embedded store it writes SIEVE_DATA_DIR/owner.json while it runs: `sieve export`, `score`, `checks`, ' +
      '`migrate` and `judge calibrate` run then work through it, with its configuration.',
  ],
  env: [
    'SIEVE_CONFIG_FILE',
    ...SERVER_ENV,
    'SIEVE_MAX_BODY_BYTES',
    'SIEVE_MAX_BYTES_IN_FLIGHT',
    'SIEVE_MAX_QUEUE_WAIT_MS',
    'SIEVE_MAX_QUEUE_SPANS',
    'SIEVE_MAX_QUEUE_BYTES',
    'SIEVE_RETENTION_DAYS',
    ...STORAGE_ENV,
    ...KAFKA_ENV,
    ...JUDGE_ENV,
    'SIEVE_SCRUB_SECRET',
  ],
  exitCodes: {
    0: 'stopped by SIGINT/SIGTERM after draining',
    1: 'could not start (storage or the queue unreachable or failing), or the stop not done within 30 s of the signal (it says how many spans were not stored and traces not scored)',
    2: 'configuration or start-up error, found before anything is written (no data directory is created): an invalid setting, an invalid checks, scorecards, scorer, judge or review section (an unknown check, a rubric), a non-loopback SIEVE_HOST without SIEVE_API_KEYS, SIEVE_PORT taken, the embedded engine not installed (an image built without it)',
  },
  async run() {
    const [{ parts }, { serve }] = await Promise.all([import('../parts.js'), import('../serve.js')])
    return serve({ name: 'up', parts, migrate: true, needsKafka: false })
  },
}
