import { JUDGE_ENV, KAFKA_ENV, SERVER_ENV, STORAGE_ENV } from '../environment.js'
import type { Command } from '../command.js'

export const scorerCommand: Command = {
  name: 'scorer',
  summary: 'Run only the scorer: its own Kafka consumer group, scores into ClickHouse and the scores topic',
  options: {},
  details: [
    'Needs KAFKA_BROKERS. Assembles traces from the spans topic, runs the checks configured for each agent ' +
      '(and the LLM judge on a sample when JUDGE_MODEL is set), writes scores to ClickHouse and the scores topic; ' +
      'serves /healthz, /readyz and /metrics on SIEVE_PORT.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...SERVER_ENV, ...KAFKA_ENV, ...STORAGE_ENV, ...JUDGE_ENV],
  exitCodes: {
    0: 'stopped by SIGINT/SIGTERM',
    1: 'could not start: storage or Kafka unreachable',
    2: 'configuration or start-up error, found before storage is opened: an invalid setting, an invalid checks, scorecards, scorer, judge or review section (an unknown check, a rubric), KAFKA_BROKERS unset, a non-loopback SIEVE_HOST without SIEVE_API_KEYS, SIEVE_PORT taken',
  },
  async run() {
    const [{ opsPart, scorerPart }, { serve }] = await Promise.all([import('../parts.js'), import('../serve.js')])
    return serve({ name: 'scorer', parts: [scorerPart, opsPart], migrate: false, needsKafka: true })
  },
}
