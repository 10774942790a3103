import type { GoldenExample } from '@sieve/exporter'
import { STORAGE_ENV } from '../environment.js'
import { fractionOption, UsageError, type Command } from '../command.js'

/** The dataset buckets (the exporter's BUCKETS, checked against its type here so `--help` need not load it). */
const BUCKET_CHOICES = ['typical', 'edge', 'known-failure'] as const satisfies readonly GoldenExample['bucket'][]

export const exportCommand: Command = {
  name: 'export',
  summary: 'Append failing or low-scoring traces to a golden JSONL dataset, PII-scrubbed',
  options: {
    out: { type: 'string', value: 'file', required: true, description: 'dataset file to append to (created if missing)' },
    score: { type: 'string', value: 'name', description: 'scorer whose value must be below --below: a check, a judge rubric (weighted score) or rubric.dimension' },
    below: { type: 'string', value: '0..1', description: 'threshold for --score' },
    failed: { type: 'string', value: 'check', description: 'only traces where this check failed' },
    since: { type: 'string', value: 'duration|date', default: '7d', description: 'traces started since: 7d, 12h, 30m or an ISO date' },
    service: { type: 'string', value: 'name', description: 'only traces of this service' },
    project: { type: 'string', value: 'id', default: 'default', description: 'project to export from' },
    limit: { type: 'string', value: 'n', default: '100', description: 'at most this many traces' },
    bucket: { type: 'string', choices: BUCKET_CHOICES, default: 'known-failure', description: 'bucket the new examples go in' },
    'review-after': { type: 'string', value: 'days', default: '90', description: 'days until each example is due for review' },
    'dry-run': { type: 'boolean', description: 'report what would be added; write nothing' },
  },
  details: [
    'Every string of every example is PII-scrubbed (stable placeholders, keyed with SIEVE_SCRUB_SECRET when set). ' +
      'Idempotent: traces already in the file, and inputs it already holds, are not added again.',
  ],
  env: ['SIEVE_CONFIG_FILE', ...STORAGE_ENV, 'SIEVE_SCRUB_SECRET'],
  exitCodes: { 0: 'exported (or nothing to export)', 1: 'storage unreachable, or another error (printed)', 2: 'usage or configuration error, or the dataset file is invalid' },
  async run({ values }) {
    const out = String(values.out)
    const score = values.score as string | undefined
    const below = fractionOption('below', values.below)
    if ((score === undefined) !== (below === undefined)) throw new UsageError('--score and --below go together')
    const [{ createStorage, loadConfig, migrate }, { createScrubber, exportDataset, loadScrubOptions, sinceUnixNano }, { loadChecksConfig }] =
      await Promise.all([import('@sieve/core'), import('@sieve/exporter'), import('@sieve/scorer')])
    const since = sinceUnixNano(String(values.since))
    if (!since) throw new UsageError(`--since must look like 7d, 12h, 30m or 2024-05-01 (got '${String(values.since)}')`)
    const limit = Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer (got '${String(values.limit)}')`)
    const bucket = String(values.bucket) as GoldenExample['bucket']
    const reviewAfterDays = Number(values['review-after'])
    if (!Number.isInteger(reviewAfterDays) || reviewAfterDays < 1) throw new UsageError('--review-after must be a positive number of days')

    const config = loadConfig()
    const scrubber = createScrubber(loadScrubOptions(config))
    const checks = await loadChecksConfig(config.sections)
    const storage = await createStorage(config.clickhouse)
    try {
      // The exports table may be newer than the deployment's last `sieve up`.
      await migrate(storage, { retentionDays: config.retentionDays })
      const report = await exportDataset(storage, {
        out,
        projectId: String(values.project),
        score,
        below,
        failed: values.failed as string | undefined,
        sinceUnixNano: since,
        service: values.service as string | undefined,
        limit,
        bucket,
        reviewAfterDays,
        dryRun: values['dry-run'] === true,
        checks,
        scrubber,
      })
      const verb = values['dry-run'] ? 'would add' : 'added'
      console.log(`${verb} ${report.added.length} example(s) to ${report.path}`)
      for (const a of report.added) console.log(`  + ${a.id} (trace ${a.traceId})`)
      for (const d of report.duplicates) console.log(`  = trace ${d.traceId}: same input as ${d.duplicateOf}, not added`)
      for (const s of report.skipped) console.log(`  - trace ${s.traceId}: ${s.reason}`)
      return 0
    } catch (err) {
      if ((err as { code?: string }).code === 'DATASET_INVALID') {
        console.error(`sieve export: ${(err as Error).message}`)
        return 2
      }
      throw err
    } finally {
      await storage.close()
    }
  },
}
