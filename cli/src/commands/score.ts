import { createStorage, loadConfig, readTrace } from '@sieve/core'
import { clickhouseScoreSink, formatTraceScore, loadChecksConfig, scoreTrace, traceScoreRecords } from '@sieve/scorer'
import { UsageError, type Command } from '../command.js'

export const scoreCommand: Command = {
  name: 'score',
  summary: 'Re-score one stored trace with the configured checks, store and print the result',
  usage: 'sieve score --trace <trace-id> [--project <id>] [--dry-run] [--json]',
  options: {
    trace: { type: 'string', description: 'Trace id (32 hex digits)' },
    project: { type: 'string', default: 'default', description: 'Project the trace belongs to (default: default)' },
    'dry-run': { type: 'boolean', description: 'Print the scores without storing them' },
    json: { type: 'boolean', description: 'Print the score records as JSON' },
  } as Command['options'], // `description` is read by --help and stripped before parseArgs
  async run({ values }) {
    const traceId = values.trace
    if (typeof traceId !== 'string' || !/^[0-9a-fA-F]{32}$/.test(traceId)) throw new UsageError('--trace needs a trace id of 32 hex digits')
    const project = String(values.project ?? 'default')
    const config = loadConfig()
    const checks = await loadChecksConfig(config.sections)
    const storage = await createStorage(config.clickhouse)
    try {
      const trace = await readTrace(storage, project, traceId)
      if (!trace) {
        console.error(`sieve score: no trace ${traceId.toLowerCase()} in project ${project}`)
        return 2
      }
      const score = scoreTrace(trace, checks)
      const records = traceScoreRecords(score)
      if (!values['dry-run']) await clickhouseScoreSink(storage).write(records)
      console.log(values.json ? JSON.stringify(records, null, 2) : formatTraceScore(score))
      if (!values['dry-run'] && !values.json) console.log(`\nstored ${records.length} scores (replacing earlier scores of the same check versions)`)
      return score.results.some((r) => !r.passed) ? 1 : 0
    } finally {
      await storage.close()
    }
  },
}
