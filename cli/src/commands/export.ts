import { createStorage, loadConfig, migrate } from '@sieve/core'
import { BUCKETS, createScrubber, exportDataset, loadScrubOptions, sinceUnixNano, type GoldenExample } from '@sieve/exporter'
import { loadChecksConfig } from '@sieve/scorer'
import { fractionOption, UsageError, type Command } from '../command.js'

export const exportCommand: Command = {
  name: 'export',
  summary: 'Append failing or low-scoring traces to a golden JSONL dataset, PII-scrubbed',
  usage: 'sieve export --out golden.jsonl [--score <name> --below <x>] [--failed <check>] [--since 7d] [--service <name>] [--limit 100] [--dry-run]',
  options: {
    out: { type: 'string', description: 'Dataset file to append to (created if missing)' },
    score: { type: 'string', description: 'Scorer whose value must be below --below: a check, a judge rubric (weighted score) or rubric.dimension' },
    below: { type: 'string', description: 'Threshold for --score, in [0, 1]' },
    failed: { type: 'string', description: 'Only traces where this check failed' },
    since: { type: 'string', default: '7d', description: 'Traces started since: 7d, 12h, 30m or an ISO date (default 7d)' },
    service: { type: 'string', description: 'Only traces of this service' },
    project: { type: 'string', default: 'default', description: 'Project (default: default)' },
    limit: { type: 'string', default: '100', description: 'At most this many traces (default 100)' },
    bucket: { type: 'string', default: 'known-failure', description: 'typical, edge or known-failure (default)' },
    'review-after': { type: 'string', default: '90', description: 'Days until each example is due for review (default 90)' },
    'dry-run': { type: 'boolean', description: 'Report what would be added; write nothing' },
  } as Command['options'], // `description` is read by --help and stripped before parseArgs
  async run({ values }) {
    const out = values.out
    if (typeof out !== 'string' || !out) throw new UsageError('--out <file> is required')
    const score = values.score as string | undefined
    const below = fractionOption('below', values.below)
    if ((score === undefined) !== (below === undefined)) throw new UsageError('--score and --below go together')
    const since = sinceUnixNano(String(values.since))
    if (!since) throw new UsageError(`--since must look like 7d, 12h, 30m or 2024-05-01 (got '${String(values.since)}')`)
    const limit = Number(values.limit)
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError(`--limit must be a positive integer (got '${String(values.limit)}')`)
    const bucket = String(values.bucket) as GoldenExample['bucket']
    if (!BUCKETS.includes(bucket)) throw new UsageError(`--bucket must be one of ${BUCKETS.join(', ')} (got '${bucket}')`)
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
