import { STORAGE_ENV } from '../environment.js'
import { UsageError, type Command } from '../command.js'

export const scoreCommand: Command = {
  name: 'score',
  summary: 'Re-score one stored trace with the configured checks, store and print the result',
  options: {
    trace: { type: 'string', value: 'trace-id', required: true, description: 'trace id (32 hex digits)' },
    project: { type: 'string', value: 'id', default: 'default', description: 'project the trace belongs to' },
    'dry-run': { type: 'boolean', description: 'print the scores without storing them' },
    json: { type: 'boolean', description: 'print the score records as JSON' },
  },
  details: ['Scores replace earlier scores of the same check versions for that trace.'],
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV],
  exitCodes: { 0: 'every check passed (and the scorecard, when one is configured)', 1: 'a check or the scorecard failed', 2: 'usage or configuration error, or no such trace' },
  async run({ values }) {
    const traceId = values.trace
    if (typeof traceId !== 'string' || !/^[0-9a-fA-F]{32}$/.test(traceId)) throw new UsageError('--trace needs a trace id of 32 hex digits')
    const project = String(values.project ?? 'default')
    const [{ createStorage, loadConfig, readTrace }, { clickhouseScoreSink, formatTraceScore, loadChecksConfig, scoreTrace, storedScoresSeen, traceScoreRecords }] =
      await Promise.all([import('@sieve/core'), import('@sieve/scorer')])
    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    const storage = await createStorage(config.clickhouse)
    try {
      const trace = await readTrace(storage, project, traceId)
      if (!trace) {
        console.error(`sieve score: no trace ${traceId.toLowerCase()} in project ${project}`)
        return 2
      }
      // The judge's stored scores are part of the scorecard written again; the judge is not asked anew.
      const score = scoreTrace(trace, checks, await storedScoresSeen(storage, project, trace.traceId, 'judge'))
      const records = traceScoreRecords(score)
      if (!values['dry-run']) await clickhouseScoreSink(storage).write(records)
      console.log(values.json ? JSON.stringify(records, null, 2) : formatTraceScore(score))
      if (!values['dry-run'] && !values.json) console.log(`\nstored ${records.length} scores (replacing earlier scores of the same check versions)`)
      return score.results.some((r) => !r.passed) || score.scorecard?.passed === false ? 1 : 0
    } finally {
      await storage.close()
    }
  },
}
