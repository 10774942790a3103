import { OWNER_NOTE, REMOTE_ENV, STORAGE_ENV } from '../environment.js'
import { URL_OPTION, UsageError, withUrl, type Command } from '../command.js'
import { USER_ERROR_CODES } from '../store/operations.js'

export const scoreCommand: Command = {
  name: 'score',
  summary: 'Re-score one stored trace with the configured checks, store and print the result',
  options: {
    url: URL_OPTION,
    trace: { type: 'string', value: 'trace-id', required: true, description: 'trace id (32 hex digits)' },
    project: { type: 'string', value: 'id', default: 'default', description: 'project the trace belongs to' },
    'dry-run': { type: 'boolean', description: 'print the scores without storing them' },
    json: { type: 'boolean', description: 'print the score records as JSON' },
  },
  details: ['Scores replace earlier scores of the same check versions for that trace.', OWNER_NOTE],
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, ...REMOTE_ENV],
  exitCodes: {
    0: 'every check passed (and the scorecard, when one is configured)',
    1: 'a check or the scorecard failed',
    2: 'usage or configuration error, or no such trace',
  },
  async run({ values }) {
    const traceId = values.trace
    if (typeof traceId !== 'string' || !/^[0-9a-fA-F]{32}$/.test(traceId)) throw new UsageError('--trace needs a trace id of 32 hex digits')
    const project = String(values.project ?? 'default')
    const [{ loadConfig }, { openOperations }] = await Promise.all([import('@sieve/core'), import('../store/open-operations.js')])
    const operations = await openOperations(loadConfig(withUrl(values)))
    try {
      const outcome = await operations.score({ projectId: project, traceId, dryRun: values['dry-run'] === true })
      console.error(`sieve score: ${operations.origin}`)
      if (!outcome) {
        console.error(`sieve score: no trace ${traceId.toLowerCase()} in project ${project}`)
        return 2
      }
      console.log(values.json ? JSON.stringify(outcome.records, null, 2) : outcome.text)
      if (!values['dry-run'] && !values.json) console.log(`\nstored ${outcome.records.length} scores (replacing earlier scores of the same check versions)`)
      return outcome.failed ? 1 : 0
    } catch (err) {
      if (USER_ERROR_CODES.has((err as { code?: string }).code ?? '')) {
        console.error(`sieve score: ${(err as Error).message}`)
        return 2
      }
      throw err
    } finally {
      await operations.close()
    }
  },
}
